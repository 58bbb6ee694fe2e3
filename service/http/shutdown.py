"""Live streams, long polls and sockets end when the server is told to stop (SIGINT, SIGTERM).

Both ASGI servers stop a worker gracefully: they stop accepting connections, wait until every open
request has been answered, and only then run the application's lifespan shutdown — granian with no
time limit, uvicorn until its graceful-shutdown timeout.  An event stream is never answered on its
own and a long poll only after up to a minute, so one open ``/play`` tab kept a worker, and
``yamen serve`` with it, running for ever after Ctrl-C.  Neither server tells a request in progress
that it is stopping, so the application watches the two signals itself: :func:`on_stop_signal` puts
a handler in front of the server's, and the server hears the signal once the application has ended
what it holds open (within a bound).  That order matters for sockets: granian, stopping, cancels
its socket tasks and drops their connections, so a close frame not yet sent is never sent, and a
client sees an abnormal close (1006) instead of 1001 ``going away``.
``yamen serve`` bounds the whole drain (``--drain-seconds``; see ``docs/reliability.md``).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import signal
import sys
import threading
import types
from collections.abc import Awaitable, Callable
from types import FrameType
from typing import Any, cast

import structlog

log = structlog.get_logger("yamen.shutdown")

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
"""What both servers stop on: Ctrl-C, and what a supervisor (Kubernetes, systemd) sends."""


def on_stop_signal(on_stop: Callable[[], Awaitable[object]], seconds: float) -> Callable[[], None]:
    """Run *on_stop* on the running event loop when SIGINT or SIGTERM arrives, then — once it has
    finished, or after *seconds* — let the server handle the signal as it would have without us;
    returns the function that takes the handler away again.

    Who handles the signal before us decides how it is put behind ours:

    - a granian worker hears it through its event loop (``loop.add_signal_handler``): the loop's
      handler is replaced by ours, which calls granian's afterwards (found by :func:`_granian_stop`);
    - uvicorn's ``handle_exit``, or any other Python handler: ours calls it afterwards;
    - none (``SIG_DFL``): the signal is raised again afterwards, and ends the process;
    - another loop's handler we cannot reach: the loop runs it at once, and ours beside it.  A loop
      learns of a signal through its wakeup fd whichever Python handler is installed, so it is not
      called from ours as well: uvloop's would record the signal a second time, and two close
      signals arriving together (Ctrl-C's SIGINT, granian's SIGTERM) would then run the handler
      three times, where granian blocks for good on the third (its stop channel holds one).

    A signal that arrives while *on_stop* runs is not passed on (a granian worker is stopped once);
    one after it is, at once (uvicorn's second Ctrl-C still forces the exit).  Only the main thread
    may install signal handlers; elsewhere (an app run by a test client's thread) nothing is
    installed."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    loop = asyncio.get_running_loop()
    before: dict[int, Any] = {}  # what signal.signal returned: a handler, SIG_DFL, SIG_IGN or None
    stopping: list[asyncio.Task[None]] = []
    granian = _granian_stop()

    def then(signum: int, frame: FrameType | None) -> None:
        """What the server does with the signal."""
        if granian is not None:
            granian(signum, frame)
            return
        previous = before.get(signum)
        if getattr(previous, "__self__", None) is loop:
            return  # the loop's own: it has the signal already (see above)
        if callable(previous):
            previous(signum, frame)
        elif previous == signal.SIG_DFL:  # what the signal would have done without us: end the process
            signal.signal(signum, signal.SIG_DFL)
            signal.raise_signal(signum)

    async def stop_then(signum: int, frame: FrameType | None) -> None:
        try:
            await asyncio.wait_for(on_stop(), seconds)
        except Exception:  # late or failed, the server must stop all the same
            log.warning("stop_incomplete", exc_info=True)
        then(signum, frame)

    def heard(signum: int, frame: FrameType | None) -> None:
        if not stopping:
            stopping.append(loop.create_task(stop_then(signum, frame)))
        elif stopping[0].done() and granian is None:
            then(signum, frame)

    if granian is not None:
        for signum in STOP_SIGNALS:
            loop.add_signal_handler(signum, heard, signum, None)

        def give_back() -> None:
            for signum in STOP_SIGNALS:
                with contextlib.suppress(RuntimeError):  # the loop has closed
                    loop.add_signal_handler(signum, granian, signum, None)

        return give_back

    def handler(signum: int, frame: FrameType | None) -> None:
        with contextlib.suppress(RuntimeError):  # the loop has closed: nothing left to stop
            loop.call_soon_threadsafe(heard, signum, frame)

    for signum in STOP_SIGNALS:
        before[signum] = signal.signal(signum, handler)

    def unwatch() -> None:
        for signum, previous in before.items():
            if signal.getsignal(signum) is handler:  # not if something installed its own since
                signal.signal(signum, previous if previous is not None else signal.SIG_DFL)

    return unwatch


def _granian_stop() -> Callable[[int, FrameType | None], None] | None:
    """The stop handler that granian's worker registered with its event loop, or None outside one.

    granian (``granian._signals.set_loop_signals``) registers a closure that sets the worker's stop
    signal, and keeps no other reference to it; uvloop does not show a loop's signal handlers, so it
    is found among the interpreter's objects (once, at start-up).  A granian that no longer has it
    leaves the worker as before: sockets may then close without their frame as the worker stops."""
    if "granian._signals" not in sys.modules:
        return None
    for candidate in gc.get_objects():
        if (
            isinstance(candidate, types.FunctionType)
            and candidate.__module__ == "granian._signals"
            and candidate.__qualname__ == "set_loop_signals.<locals>.signal_handler"
        ):
            return cast("Callable[[int, FrameType | None], None]", candidate)
    return None
