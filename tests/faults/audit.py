"""After the load: what the service stored, checked against what the clients were told.

Through the API only: each game's history (``GET /v1/games/{id}/events``, paged), its record
(``GET /v1/games/{id}/record``, NDJSON, which carries each event's Idempotency-Key) and the server's
verification (``GET /v1/games/{id}/verification``); the exported record is also verified offline
with the checks ``yamen verify`` runs.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from dataclasses import dataclass, field

import httpx
import msgspec

from .load import Ledger

_json = msgspec.json.Decoder()


@dataclass
class Audit:
    games: int = 0
    events: int = 0
    acked: int = 0
    lost: list[str] = field(default_factory=list)
    """Acknowledged moves whose events are not in the history at the acknowledged seqs."""
    duplicated: list[str] = field(default_factory=list)
    """Idempotency-Keys whose command was stored more than once."""
    phantom: list[str] = field(default_factory=list)
    """Events no client sent (an unknown key, or no key after the setup)."""
    gaps: list[str] = field(default_factory=list)
    chains: list[str] = field(default_factory=list)
    """Games whose server verification or offline verification failed."""
    unresolved: int = 0
    """Moves whose fate the client never learned."""
    unresolved_committed: int = 0
    errors: list[str] = field(default_factory=list)
    """Audit requests that failed (the audit itself could not look)."""


async def _get(client: httpx.AsyncClient, path: str, headers: dict[str, str] | None = None) -> httpx.Response:
    for _ in range(20):  # the service has recovered by now; a 503 here is retried briefly
        r = await client.get(path, headers=headers)
        if r.status_code != 503:
            return r
        await asyncio.sleep(0.5)
    return r


async def audit(base: str, ledger: Ledger) -> Audit:
    from domain.registry import production_games
    from service.record.format import RecordError, read_record
    from service.record.verify import verify

    games = production_games()
    out = Audit(games=len(ledger.games), acked=len(ledger.acks))
    acks_by_game = defaultdict(list)
    for ack in ledger.acks:
        acks_by_game[ack.game_id].append(ack)
    gate = asyncio.Semaphore(6)

    async def one(client: httpx.AsyncClient, game_id: str) -> None:
        game = ledger.games[game_id]
        auth = {"Authorization": f"Bearer {game.tokens[0]}"}
        async with gate:
            # the history, paged
            seqs: list[int] = []
            after, version = 0, None
            while True:
                r = await _get(client, f"/v1/games/{game_id}/events?after={after}&limit=1000")
                if r.status_code != 200:
                    out.errors.append(f"{game_id} events: {r.status_code} {r.text[:200]}")
                    return
                page = r.json()
                version = page["version"]
                seqs += [e["seq"] for e in page["events"]]
                if page["next_after"] is None:
                    break
                after = page["next_after"]
            r = await _get(client, f"/v1/games/{game_id}/record", auth)
            if r.status_code != 200:
                out.errors.append(f"{game_id} record: {r.status_code} {r.text[:200]}")
                return
            lines = [line for line in r.content.split(b"\n") if line.strip()]
            v = await _get(client, f"/v1/games/{game_id}/verification")
            if v.status_code != 200:
                out.errors.append(f"{game_id} verification: {v.status_code} {v.text[:200]}")
                return
            verification = v.json()

        if seqs != list(range(1, version + 1)):
            out.gaps.append(f"{game_id}: history seqs are not 1..{version} ({len(seqs)} events)")
        header = _json.decode(lines[0])
        events = [_json.decode(line) for line in lines[1:]]
        events = [e for e in events if e.get("record") == "event"]
        out.events += len(events)
        rec_seqs = [e["seq"] for e in events]
        if rec_seqs != list(range(1, header["version"] + 1)) or header["version"] != version:
            out.gaps.append(f"{game_id}: record seqs are not 1..{header['version']} (history says {version})")

        if not verification.get("ok"):
            failed = [c for c in verification.get("checks", []) if c.get("status") == "failed"]
            out.chains.append(f"{game_id}: server verification failed: {failed}")
        try:
            offline = verify(read_record(lines), games)
            if not offline.ok:
                failed = [(c.name, c.first_bad_seq, c.detail) for c in offline.checks if c.status == "failed"]
                out.chains.append(f"{game_id}: offline verification failed: {failed}")
        except RecordError as exc:
            out.chains.append(f"{game_id}: the record does not read: {exc}")

        # Every event after the setup carries the key of the command that caused it; each key's
        # events are one contiguous block (one command).
        by_key: dict[str, list[int]] = defaultdict(list)
        types: dict[int, str] = {}
        for e in events:
            types[e["seq"]] = e["type"]
            key = e.get("idempotency_key")
            if key is None:
                if e["seq"] > game.created_version:
                    out.phantom.append(f"{game_id}: event {e['seq']} ({e['type']}) has no Idempotency-Key")
                continue
            if key not in game.keys:
                out.phantom.append(f"{game_id}: event {e['seq']} carries a key no client sent: {key}")
            by_key[key].append(e["seq"])
        for key, block in by_key.items():
            if block != list(range(block[0], block[0] + len(block))):
                out.duplicated.append(f"{game_id}: key {key} stored at seqs {block} (more than one command)")
        for ack in acks_by_game.get(game_id, []):
            want = [seq for seq, _ in ack.events]
            got = by_key.get(ack.key, [])
            if not want or want[-1] != ack.version:
                out.lost.append(f"{game_id}: {ack.key} acknowledged v{ack.version} with events {want}")
            elif not set(want) <= set(got):
                out.lost.append(
                    f"{game_id}: {ack.key} acknowledged at seqs {want}, stored at {got or 'nowhere'}"
                )
            elif len(got) > len(want):
                out.duplicated.append(f"{game_id}: {ack.key} acknowledged at seqs {want}, stored at {got}")
            else:
                mismatch = [
                    (s, t, types.get(s)) for s, t in ack.events if t is not None and types.get(s) != t
                ]
                if mismatch:
                    out.lost.append(
                        f"{game_id}: {ack.key} acknowledged events differ from stored: {mismatch}"
                    )
        for key, fate in game.keys.items():
            if fate == "unresolved":
                out.unresolved += 1
                out.unresolved_committed += key in by_key

    limits = httpx.Limits(max_connections=8, max_keepalive_connections=8)
    async with httpx.AsyncClient(base_url=base, timeout=60, limits=limits) as client:
        await asyncio.gather(*(one(client, g) for g in ledger.games))
    return out
