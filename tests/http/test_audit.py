"""Records: export, offline verification, tamper detection at the right seq, import."""

from __future__ import annotations

import json

from service.record.format import read_record
from service.record.verify import verify
from tests.conftest import test_games
from tests.golden.tamper import rechain as _rechain
from tests.http.helpers import bearer, create, play_to_end


async def _finished_record(client, players=3, seed="audit-seed") -> tuple[str, list[bytes]]:
    created = await create(client, "bluff", {"players": players, "rounds": 2}, seed=seed)
    tokens = {t["seat"]: t["token"] for t in created["tokens"]}
    await play_to_end(client, created["game_id"], tokens)
    response = await client.get(f"/v1/games/{created['game_id']}/record")
    assert response.status_code == 200 and response.headers["content-type"].startswith("application/x-ndjson")
    return created["game_id"], response.content.splitlines()


def _statuses(report) -> dict[str, tuple[str, int | None]]:
    return {c.name: (c.status, c.first_bad_seq) for c in report.checks}


async def test_a_finished_record_verifies_offline(client):
    game_id, lines = await _finished_record(client)
    report = verify(read_record(lines), test_games())
    assert report.ok and {c.status for c in report.checks} == {"passed"}, report
    served = (await client.get(f"/v1/games/{game_id}/verification")).json()
    assert served["ok"] and [c["status"] for c in served["checks"]] == ["passed"] * 5


async def test_a_running_game_record_is_redacted_but_its_chain_verifies(client):
    created = await create(client, "bluff", {"players": 3}, seed="running-seed")
    tokens = {t["seat"]: t["token"] for t in created["tokens"]}
    game_id = created["game_id"]
    mine = (await client.get(f"/v1/games/{game_id}", headers=bearer(tokens[0]))).json()["view"]["card"]
    for headers, seat in (({}, None), (bearer(tokens[1]), 1), (bearer(tokens[0]), 0)):
        text = (await client.get(f"/v1/games/{game_id}/record", headers=headers)).text
        assert "running-seed" not in text
        record = read_record(text.encode().splitlines())
        assert record.header.seed is None and record.footer is None
        drawn = next(e for e in record.events if e.type == "bluff.CardDrawn")
        if seat == 0:
            assert json.loads(bytes(drawn.payload))["card"] == mine
        else:
            assert bytes(drawn.payload) == b"null" and json.loads(bytes(drawn.shown))["card"] is None
        report = verify(record, test_games())
        assert _statuses(report)["chain"] == ("passed", None)
        assert report.ok


async def test_tampering_is_caught_at_the_right_seq(client):
    _, lines = await _finished_record(client, seed="tamper-seed")
    games = test_games()
    events = [json.loads(line) for line in lines[1:-1]]

    # 1. An event's payload edited: the chain breaks there.
    target = next(e["seq"] for e in events if e["type"] == "bluff.Staked")
    edited = list(lines)
    line = json.loads(edited[target])
    line["payload"]["amount"] = 3 if line["payload"]["amount"] != 3 else 1
    edited[target] = json.dumps(line).encode()
    assert _statuses(verify(read_record(edited), games))["chain"] == ("failed", target)

    # 2. An event removed.
    removed = lines[:target] + lines[target + 1 :]
    assert _statuses(verify(read_record(removed), games))["chain"] == ("failed", target)

    # 3. Two events swapped.
    swapped = list(lines)
    swapped[target], swapped[target + 1] = swapped[target + 1], swapped[target]
    assert _statuses(verify(read_record(swapped), games))["chain"] == ("failed", target)

    # 4. A draw changed, and the chain forged to match: replay catches it where the draw is.
    draw = [e for e in events if e["type"] == "bluff.CardDrawn"][1]["seq"]
    forged = list(lines)
    line = json.loads(forged[draw])
    line["payload"]["card"] = 1 if line["payload"]["card"] != 1 else 2
    forged[draw] = json.dumps(line).encode()
    forged = _rechain(forged, "tamper-seed", draw)
    report = _statuses(verify(read_record(forged), games))
    assert report["chain"] == ("passed", None)
    assert report["replay"] == ("failed", draw)

    # 5. The seed replaced: it no longer matches the commitment.
    header = json.loads(lines[0])
    header["seed"] = "another-seed"
    reseeded = [json.dumps(header).encode(), *lines[1:]]
    report = _statuses(verify(read_record(reseeded), games))
    assert report["seed"] == ("failed", 1)
    assert not verify(read_record(reseeded), games).ok


async def test_import_stores_a_verified_record_as_a_new_game(client):
    original, lines = await _finished_record(client, seed="import-seed")
    response = await client.post(
        "/v1/games/import", content=b"\n".join(lines), headers={"content-type": "application/x-ndjson"}
    )
    assert response.status_code == 201, response.text
    imported = response.json()
    assert imported["imported_from"] == original and imported["game_id"] != original
    doc = (await client.get(f"/v1/games/{imported['game_id']}")).json()
    assert doc["status"] == "finished" and doc["seed"] == "import-seed"
    assert (await client.get(f"/v1/games/{imported['game_id']}/verification")).json()["ok"]
    # A forged record is refused, naming the check and seq.
    bad = list(lines)
    line = json.loads(bad[3])
    line["recorded_at"] = "2001-01-01T00:00:00.000000+00:00"
    bad[3] = json.dumps(line).encode()
    refused = await client.post(
        "/v1/games/import", content=b"\n".join(bad), headers={"content-type": "application/x-ndjson"}
    )
    assert refused.status_code == 422 and refused.json()["code"] == "record_does_not_verify"
    assert "chain" in refused.json()["detail"] and "seq 3" in refused.json()["detail"]
    garbage = await client.post(
        "/v1/games/import", content=b"not a record", headers={"content-type": "application/x-ndjson"}
    )
    assert garbage.status_code == 422 and garbage.json()["code"] == "invalid_record"


async def test_cli_verifies_and_narrates_a_record_offline(client, tmp_path, monkeypatch, capsys):
    from service import cli

    _, lines = await _finished_record(client, seed="cli-seed")
    path = tmp_path / "game.ndjson"
    path.write_bytes(b"\n".join(lines) + b"\n")
    monkeypatch.setattr(cli, "_games", test_games)
    assert cli.main(["verify", str(path)]) == 0
    out = capsys.readouterr().out
    assert "VERIFIED" in out and out.count("PASSED") == 5
    assert cli.main(["replay", str(path)]) == 0
    story = capsys.readouterr().out
    assert "Final scores" in story and "Winner" in story and "bluff.Claimed" not in story
    bad = list(lines)
    bad.pop(4)
    path.write_bytes(b"\n".join(bad))
    assert cli.main(["verify", str(path)]) == 1
    assert "chain   FAILED at seq 4" in capsys.readouterr().out


async def test_the_record_is_labelled_as_the_client_asks(client):
    """NDJSON by default; the same bytes as application/octet-stream to a client (a generated one)
    that asks for that, as the document offers."""
    created = await create(client, "bluff", {"players": 2})
    path = f"/v1/games/{created['game_id']}/record"
    plain = await client.get(path)
    assert plain.headers["content-type"].startswith("application/x-ndjson")
    octets = await client.get(path, headers={"Accept": "application/octet-stream"})
    assert octets.headers["content-type"].startswith("application/octet-stream")
    assert octets.content == plain.content
