"""A multi-host topology on one machine (issue 19): Postgres primary + synchronous standby under
pg_auto_failover, a Redis Cluster, three ``yamen serve`` replicas and HAProxy, each host its own
process group on its own loopback address (see hosts.py).  One topology serves the whole module;
each failover test brings it back to full strength under load before it ends.

Printed with ``-s``; the tables of a complete run go into docs/scaling.md.
"""

from __future__ import annotations

import asyncio
import time

import pytest

from tests.faults.load import Http
from tests.faults.report import RECOVERY_BOUND, Check
from tests.processes import HarnessError, safe, wait_for

from .hosts import API_WORKERS, STANDBY_MAX_LAG_MS, Replica, Topology, haproxy_features
from .probes import COLD, consistency, seat_reads, spectator_reads
from .report import Findings
from .scenarios import SPECS, Failover, Injected, Restored, run_failover, throughput

pytestmark = pytest.mark.slow

CHANNEL = "yamen:moves"
"""The notice channel (service.infra.notices.CHANNEL): its slot's master is the Redis host that
matters most."""
CONSISTENCY_MOVES = 300
STANDBY_MOVES = 12
PG_FAILOVER_BOUND = 15.0
"""The standby accepts writes within this long of the primary host's death."""
REDIS_FAILOVER_BOUND = 10.0
"""A replica of the killed Redis master serves its slots within this long."""
PROXY_DOWN_BOUND = 3.0
"""HAProxy takes a dead replica out within this long (checks every 500 ms, out after 2)."""
FULL_STRENGTH_BOUND = 90.0


def _report(failover: Failover) -> None:
    outcome = failover.outcome
    print("\n" + outcome.row() + "\n" + outcome.details())
    assert outcome.ok, outcome.details()


async def _readyz(replica: Replica) -> tuple[int, dict]:
    http = Http(replica.host, replica.port)
    try:
        answer = await http.request("GET", "/readyz")
    finally:
        await http.close()
    try:
        body = answer.json()
    except Exception:  # noqa: BLE001 - shown as it is
        body = {"raw": answer.body[:200]}
    return answer.status, body


def test_topology_comes_up(topology: Topology) -> None:
    pg, redis, proxy = topology.pg, topology.redis, topology.proxy
    assert proxy is not None
    print("\n" + topology.describe())
    print(pg.formation_settings())
    primary, standby = pg.primary(), pg.standby()
    assert primary is not None and standby is not None, pg.states()
    sync, names, rows = pg.synchronous(primary)
    print(f"primary {primary.name}: synchronous_standby_names = {names!r}; pg_stat_replication: {rows}")
    features = haproxy_features(proxy.config)
    print(f"HAProxy config (derived from deploy/haproxy/haproxy.cfg): {proxy.config_path}")
    print("HAProxy promises: " + ", ".join(f"{k}: {'yes' if v else 'NO'}" for k, v in features.items()))
    slots = redis.slots()
    print("Redis slots: " + "; ".join(f"{a}-{b} master {m} replicas {r}" for a, b, m, r in slots))
    assert sync, f"the standby is not synchronous: {names!r} {rows}"
    assert "target_session_attrs=read-write" in topology.database_url
    assert "target_session_attrs=standby" in topology.standby_url
    assert redis.full(), redis.roles()
    assert sorted(redis.roles().values()) == ["master"] * 3 + ["slave"] * 3
    assert all(features.values()), features
    assert proxy.up() == sorted(r.name for r in topology.replicas), proxy.servers()


async def test_replicas_use_the_redis_cluster(topology: Topology) -> None:
    """Every replica reports Postgres and Redis (the cluster) ok, and every worker of every replica
    subscribes to the notice channel at its slot's master."""
    ready = {r.name: await _readyz(r) for r in topology.replicas}
    slot = topology.redis.keyslot(CHANNEL)
    master = topology.redis.master_of(slot)
    want = len(topology.replicas) * API_WORKERS
    await wait_for(safe(lambda: master.subscribers(CHANNEL) >= want), RECOVERY_BOUND)
    subscribers = master.subscribers(CHANNEL)
    started = {
        r.name: [line for line in r.logs[-1].read_text().splitlines() if '"started"' in line][:1]
        for r in topology.replicas
    }
    print(f"\n/readyz: {ready}")
    print(
        f"{CHANNEL} is in slot {slot}, master {master.name} ({master.where()}): {subscribers} subscriber(s)"
    )
    print(f"start-up lines: {started}")
    assert all(status == 200 and body.get("postgres") == "ok" for status, body in ready.values()), ready
    assert all(body.get("redis") == "ok" for _, body in ready.values()), (
        f"a replica does not use the Redis cluster (REDIS_CLUSTER_NODES): {ready}; {started}"
    )
    assert subscribers == want, (
        f"{subscribers} subscriber(s) of {CHANNEL} at {master.name}, the master of slot {slot}; want one per "
        f"worker ({want})"
    )


async def test_consistency_across_replicas(topology: Topology, findings: Findings) -> None:
    """A move acknowledged by one replica, read at once from the two others: with
    ``?min_version`` (or ``If-None-Match``) never older; plainly, measured."""
    result = await consistency(topology.replicas, CONSISTENCY_MOVES)
    findings.consistency = result
    print(f"\n{result.moves} moves in {result.games} games in {result.seconds:.1f} s\n" + result.table())
    for kind in ("plain", "min_version", "if_none_match"):
        print(f"stale reads, {kind}: {len(result.stale(kind))}")
    for r in [*result.stale("plain"), *result.stale("min_version"), *result.stale("if_none_match")][:10]:
        print(
            f"  {r.kind} from {r.replica}: saw v{r.seen}, acknowledged v{r.acked}, "
            f"{r.lag * 1000:.0f} ms after"
        )
    assert not result.errors, result.errors[:5]
    assert result.moves >= CONSISTENCY_MOVES
    assert not result.ahead(), result.ahead()[:5]
    assert not result.stale("min_version"), "a read with ?min_version=N showed an older version than N"
    assert not result.stale("if_none_match"), 'a read with If-None-Match: "N" showed an older version than N'


async def test_standby_reads(topology: Topology, findings: Findings) -> None:
    """A spectator's history and record come from the standby (``Standby-Lag-Ms``, within the
    bound), and its document too on a replica that never served the game (one that did may answer
    from the state it remembers, once Postgres confirmed its version); a seat's own reads, right
    after its move and on another replica, never come from the standby and show the move (the
    document and legal moves with ``?min_version``, the history as it is).  The game is played on
    two replicas; the third stays new to it."""
    from service.application.states import TRUST_SECONDS

    players, new = topology.replicas[:2], topology.replicas[2]
    seats = await seat_reads(players, STANDBY_MOVES)
    replayed = await asyncio.to_thread(topology.pg.wait_replayed)
    # a remembered state answers reads for at most TRUST_SECONDS without asking Postgres again
    await asyncio.sleep(max(0.0, seats.last_move_at + TRUST_SECONDS + 0.25 - time.monotonic()))
    spectators = await spectator_reads(topology.replicas, seats.game_id, seats.acked, cold={new.name})
    seats.reads += spectators.reads
    seats.errors += spectators.errors
    findings.standby = seats
    print(f"\ngame {seats.game_id}, {seats.moves} moves; standby replayed in {replayed:.2f} s")
    print(seats.table())
    assert not seats.errors, seats.errors[:5]
    from_standby = [r for r in seats.seat() if r.lag_header is not None]
    assert not from_standby, f"a seat's own read was answered from the standby: {from_standby[:5]}"
    own = [r for r in seats.seat() if r.what != "document (plain)" and (r.version or 0) < r.acked]
    assert not own, f"a seat's read did not show its own move: {own[:5]}"
    missing = [
        r for r in seats.spectator() if r.lag_header is None and (r.who == COLD or r.what != "document")
    ]
    assert not missing, f"spectator reads without Standby-Lag-Ms (not from the standby): {missing}"
    lagged = [r for r in seats.spectator() if r.lag_header is not None]
    bad = [
        r for r in lagged if not str(r.lag_header).isdigit() or int(str(r.lag_header)) > STANDBY_MAX_LAG_MS
    ]
    assert not bad, f"Standby-Lag-Ms not a number of ms within {STANDBY_MAX_LAG_MS}: {bad}"
    behind = [r for r in seats.spectator() if r.version != seats.acked]
    assert not behind, f"spectator reads after the standby replayed the game, not at v{seats.acked}: {behind}"


async def test_throughput_with_one_two_and_three_replicas(topology: Topology, findings: Findings) -> None:
    await asyncio.to_thread(topology.heal)
    findings.throughput = []
    for n in (1, 2, 3):
        findings.throughput.append(await throughput(topology, n, seed=100 + n))
    from .report import throughput_table

    print("\n" + throughput_table(findings))
    for t in findings.throughput:
        assert t.moves_per_s > 0, t
        assert set(t.statuses) <= {"200", "201"}, f"{t.replicas} replica(s): answers {t.statuses}"
        assert len(t.served) == t.replicas, f"{t.replicas} replica(s) ready, answers came from {t.served}"


# --------------------------------------------------------------------------- failovers


async def test_postgres_primary_killed(topology: Topology, findings: Findings) -> None:
    pg = topology.pg
    victim: list = []

    async def inject(topo: Topology) -> Injected:
        primary, standby = pg.primary(), pg.standby()
        assert primary is not None and standby is not None
        sync, names, rows = await asyncio.to_thread(pg.synchronous, primary)
        victim.append(primary)
        killed = time.monotonic()
        await asyncio.to_thread(primary.kill)
        promoted = await wait_for(safe(standby.accepts_writes), 60.0, every=0.05)
        states = await asyncio.to_thread(pg.states)
        checks = [
            Check("the standby was synchronous when the primary died", sync, f"{names!r} {rows}"),
            Check(
                f"the standby was promoted (accepts writes) within {PG_FAILOVER_BOUND:g} s",
                promoted is not None and promoted - killed <= PG_FAILOVER_BOUND,
                f"after {promoted - killed:.2f} s" if promoted else "never (60 s)",
            ),
        ]
        extra = {
            "killed": f"{primary.name} ({primary.where()}), process group {primary.pgid}",
            "promoted": f"{standby.name} after {promoted - killed:.2f} s" if promoted else "never",
            "monitor states after the promotion": {n: (s.reported, s.assigned) for n, s in states.items()},
        }
        return Injected(promoted or time.monotonic(), checks, extra)

    async def restore(topo: Topology) -> Restored:
        old = victim[0]
        t0 = time.monotonic()
        await asyncio.to_thread(old.start)  # pg_autoctl run: the keeper rejoins as a standby
        try:
            await asyncio.to_thread(pg.wait_full, FULL_STRENGTH_BOUND)
            full = time.monotonic()
        except HarnessError:
            full = None
        states = await asyncio.to_thread(pg.states)
        primary = pg.primary()
        sync = await asyncio.to_thread(pg.synchronous, primary) if primary else (False, "", [])
        rejoined = states.get(old.name)
        checks = [
            Check(
                "the old primary rejoined as the synchronous standby",
                full is not None and rejoined is not None and rejoined.reported == "secondary" and sync[0],
                f"{old.name}: {rejoined}; {sync[1]!r} {sync[2]}",
            )
        ]
        extra = {
            "old primary back as a synchronous standby after its restart": f"{full - t0:.2f} s"
            if full
            else "never",
        }
        return Restored(full, checks, extra)

    failover = await run_failover(topology, SPECS["pg_primary_kill"], inject, restore, seed=1)
    findings.failovers["pg_primary_kill"] = failover
    _report(failover)


async def test_redis_master_of_the_notice_slot_killed(topology: Topology, findings: Findings) -> None:
    redis = topology.redis
    want = len(topology.replicas) * API_WORKERS
    victim: list = []

    async def inject(topo: Topology) -> Injected:
        slot = redis.keyslot(CHANNEL)
        master = redis.master_of(slot)
        before = master.subscribers(CHANNEL)
        victim.append(master)
        killed = time.monotonic()
        await asyncio.to_thread(master.kill)

        def taken_over() -> bool:
            owner = redis.master_of(slot)
            return owner is not master and owner.running and redis.ok()

        back = await wait_for(safe(taken_over), 30.0, every=0.05)
        new = redis.master_of(slot) if back else master
        resubscribed = await wait_for(safe(lambda: new.subscribers(CHANNEL) >= want), RECOVERY_BOUND)
        try:
            after: object = new.subscribers(CHANNEL)
        except Exception as exc:  # noqa: BLE001 - shown in the check
            after = f"? ({exc})"
        checks = [
            Check(
                f"a replica took over slot {slot} within {REDIS_FAILOVER_BOUND:g} s",
                back is not None and back - killed <= REDIS_FAILOVER_BOUND,
                f"after {back - killed:.2f} s" if back else "never (30 s)",
            ),
            Check(
                f"every worker subscribed to {CHANNEL} at the new master within {RECOVERY_BOUND:g} s",
                resubscribed is not None,
                f"{after} subscriber(s) at {new.name}, want {want} ({before} at {master.name} "
                "before the fault)",
            ),
        ]
        extra = {
            "slot of yamen:moves": slot,
            "killed master": f"{master.name} ({master.where()}), {before} subscriber(s) of {CHANNEL}",
            "new master": f"{new.name} ({new.where()}) after {back - killed:.2f} s" if back else "none",
            "re-subscribed after": f"{resubscribed - killed:.2f} s" if resubscribed else "never",
        }
        return Injected(back or time.monotonic(), checks, extra)

    async def restore(topo: Topology) -> Restored:
        old = victim[0]
        t0 = time.monotonic()
        await asyncio.to_thread(old.start)
        full = await wait_for(safe(redis.full), FULL_STRENGTH_BOUND, every=0.1)
        role = (await asyncio.to_thread(old.info, "replication")).get("role")
        checks = [
            Check(
                "the killed master rejoined as a replica",
                full is not None and role == "slave",
                f"role {role}",
            )
        ]
        extra = {
            "killed master back as a replica after its restart": f"{full - t0:.2f} s" if full else "never"
        }
        return Restored(full, checks, extra)

    failover = await run_failover(topology, SPECS["redis_master_kill"], inject, restore, seed=2)
    findings.failovers["redis_master_kill"] = failover
    _report(failover)


async def test_api_replica_killed(topology: Topology, findings: Findings) -> None:
    proxy = topology.proxy
    assert proxy is not None
    victim = topology.replica("api-2")

    async def inject(topo: Topology) -> Injected:
        killed = time.monotonic()
        await asyncio.to_thread(victim.kill)
        down = await wait_for(
            safe(lambda: proxy.servers().get(victim.name, "").startswith("DOWN")), 10.0, every=0.05
        )
        checks = [
            Check(
                f"HAProxy took the dead replica out within {PROXY_DOWN_BOUND:g} s",
                down is not None and down - killed <= PROXY_DOWN_BOUND,
                f"after {down - killed:.2f} s" if down else f"never (10 s): {proxy.servers()}",
            )
        ]
        extra = {
            "killed": f"{victim.name} ({victim.where()}), process group {victim.proc and victim.proc.pid}",
            "HAProxy marked it DOWN after": f"{down - killed:.2f} s" if down else "never",
        }
        return Injected(down or time.monotonic(), checks, extra)

    async def restore(topo: Topology) -> Restored:
        t0 = time.monotonic()
        refused: list[str] = []
        while True:
            await asyncio.to_thread(victim.spawn)
            try:
                await asyncio.to_thread(victim.wait_serving)
                break
            except HarnessError:
                refused.append(f"+{time.monotonic() - t0:.1f} s: {victim.log_tail(1).strip()}")
                if time.monotonic() - t0 > FULL_STRENGTH_BOUND:
                    break
                await asyncio.sleep(1.0)
        up = await wait_for(safe(lambda: proxy.servers().get(victim.name) == "UP"), 30.0, every=0.05)
        checks = [
            Check(
                "the replica started again on its address at the first attempt",
                not refused,
                "; ".join(refused[:2]),
            ),
            Check("HAProxy put the restarted replica back", up is not None, f"{proxy.servers()}"),
        ]
        extra = {
            "replica serving again, and UP in HAProxy, after its restart": f"{up - t0:.2f} s"
            if up
            else "never"
        }
        return Restored(up, checks, extra)

    failover = await run_failover(topology, SPECS["replica_kill"], inject, restore, seed=3)
    findings.failovers["replica_kill"] = failover
    _report(failover)
