"""What it costs to hand the batched append its parameters: psycopg adapting Python lists element
by element (the old way) vs one pre-encoded array literal per column (``store._array_literal``).
In-process, no server: the client-side CPU of one 40-row batch, median of many."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

ROWS = 40


def _columns(rows: int) -> list[list[Any]]:
    now = datetime.now(UTC)
    payload = '{"type":"yangtze.GoodsSold","seat":1,"goods":[12,55],"value":10,"via":"turn"}'
    ids = [f"g_{i:020x}" for i in range(rows)]
    events = [
        ids,
        list(range(rows)),
        ["yangtze.GoodsSold"] * rows,
        [payload] * rows,
        ["{0,1}"] * rows,
        [1] * rows,
        ['{"type":"yangtze.SellBundle","goods":[12,55]}'] * rows,
        [None] * rows,
        [now] * rows,
        ["ab" * 32] * rows,
        ["cd" * 32] * rows,
    ]
    updates = [
        ids,
        list(range(rows)),
        list(range(1, rows + 1)),
        ["cd" * 32] * rows,
        ["active"] * rows,
        [now] * rows,
    ]
    return [*events, *updates]


def adaptation_cost(database_url: str, repeat: int = 2001) -> dict[str, float]:
    import psycopg
    from psycopg.adapt import PyFormat, Transformer

    from service.infra.store import _array_literal

    columns = _columns(ROWS)
    with psycopg.connect(database_url) as conn:
        tx = Transformer(conn)
        formats = [PyFormat.AUTO] * len(columns)

        def median(fn) -> float:
            times = []
            for _ in range(repeat):
                t0 = time.perf_counter()
                fn()
                times.append(time.perf_counter() - t0)
            times.sort()
            return times[len(times) // 2]

        lists = median(lambda: tx.dump_sequence(columns, formats))
        literals = median(lambda: tx.dump_sequence([_array_literal(c) for c in columns], formats))
    return {
        "rows": ROWS,
        "lists_us_per_row": lists * 1e6 / ROWS,
        "literals_us_per_row": literals * 1e6 / ROWS,
        "ratio": lists / literals,
    }
