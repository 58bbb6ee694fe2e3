"""Forgeries an auditor must catch, shared by the fixture's and the golden records' tests."""

from __future__ import annotations

import json
from datetime import datetime

from service.record.chain import chain_hash, payload_digest


def rechain(lines: list[bytes], seed: str, start: int) -> list[bytes]:
    """What a forger would do: recompute every hash from *start* on so the chain looks intact."""
    out = list(lines[:start])
    prev = json.loads(lines[start - 1])["hash"] if start > 1 else json.loads(lines[0])["seed_commitment"]
    for raw in lines[start:]:
        line = json.loads(raw)
        if line["record"] != "event":
            out.append(raw)
            continue
        payload = json.dumps(line["payload"], separators=(",", ":")).encode()
        digest = payload_digest(payload, line.get("visible_to"), seed, line["seq"])
        command = (
            json.dumps(line["command"], separators=(",", ":")).encode()
            if line.get("command") is not None
            else None
        )
        line["prev_hash"] = prev
        line["hash"] = prev = chain_hash(
            prev,
            line["seq"],
            line["type"],
            digest,
            line.get("visible_to"),
            line.get("seat"),
            command,
            line.get("idempotency_key"),
            datetime.fromisoformat(line["recorded_at"]),
        )
        line["payload"] = json.loads(payload)
        out.append(json.dumps(line, separators=(",", ":")).encode())
    return out
