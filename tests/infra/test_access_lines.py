"""The access log's lines leave the request path: a thread writes them in batches of whole lines,
none lost, none twice, in order, and a batch never larger than one atomic pipe write."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import threading

import pytest

from service.infra import logging as access


class Recording(io.StringIO):
    def __init__(self) -> None:
        super().__init__()
        self.writes: list[str] = []

    def write(self, text: str) -> int:
        self.writes.append(text)
        return super().write(text)


def recorded(monkeypatch: pytest.MonkeyPatch) -> Recording:
    """stderr recorded (in the test's body: pytest's capture replaces stderr after the fixtures)."""
    recording = Recording()
    monkeypatch.setattr(sys, "stderr", recording)
    return recording


def test_lines_added_from_many_threads_come_out_once_each_in_whole_writes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stderr = recorded(monkeypatch)
    lines = access.BufferedLines(0.001)
    lines.batch = 7

    def adds(k: int) -> None:
        for i in range(2000):
            lines.add(json.dumps({"event": "request", "thread": k, "i": i, "pad": "é" * (i % 50)}))

    threads = [threading.Thread(target=adds, args=(k,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    lines.flush()
    records = [json.loads(line) for line in stderr.getvalue().splitlines()]
    assert len(records) == 8000
    for k in range(4):
        assert [r["i"] for r in records if r["thread"] == k] == list(range(2000))
    assert all(w.endswith("\n") and len(w.encode()) <= access.PIPE_BUF for w in stderr.writes)


def test_a_line_longer_than_a_pipe_write_goes_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    stderr = recorded(monkeypatch)
    lines = access.BufferedLines(60)
    lines.add("a")
    lines.add("b" * (2 * access.PIPE_BUF))
    lines.add("c")
    lines.flush()
    assert stderr.writes == ["a\n", "b" * (2 * access.PIPE_BUF) + "\n", "c\n"]


def test_another_line_is_written_after_the_access_lines_before_it(monkeypatch: pytest.MonkeyPatch) -> None:
    stderr = recorded(monkeypatch)
    monkeypatch.setattr(access.ACCESS_LINES, "seconds", 60)  # buffered, as in a server
    access.ACCESS_LINES.add("first")
    assert "first" not in stderr.getvalue()
    access.LineLogger().msg("second")
    assert stderr.getvalue().splitlines()[-2:] == ["first", "second"]


def test_what_a_process_holds_is_written_at_exit() -> None:
    """No thread has had its turn yet: the lines go out when the interpreter exits."""
    code = "from service.infra.logging import ACCESS_LINES\nfor i in range(5000): ACCESS_LINES.add(str(i))\n"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stderr.splitlines() == [str(i) for i in range(5000)]


def test_json_is_rendered_by_msgspec_and_what_it_cannot_encode_falls_back() -> None:
    assert access.render_json({"event": "request", "status": 200}) == '{"event":"request","status":200}'
    assert json.loads(access.render_json({"event": "x", "thing": object()}))["thing"].startswith("<object")
    assert json.loads(access.render_json({"event": "x", 1.5: "a float key"}))["1.5"] == "a float key"
