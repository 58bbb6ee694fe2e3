"""The webhook sender alone: the guard against server-side request forgery, the signatures and the
bounds of one attempt, against real sockets on this machine."""

from __future__ import annotations

import contextlib
import ipaddress
import socket
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime

import pytest
from standardwebhooks import Webhook

from service.application.webhooks import new_secret
from service.infra.webhook_delivery import Sender, UrlRefused, check_address, resolve


@pytest.mark.parametrize(
    ("address", "why"),
    [
        ("127.0.0.1", "loopback"),
        ("127.8.9.10", "loopback"),
        ("10.1.2.3", "private"),
        ("172.16.0.1", "private"),
        ("192.168.1.1", "private"),
        ("169.254.169.254", "link-local"),
        ("0.0.0.0", "unspecified"),
        ("224.0.0.251", "multicast"),
        ("240.0.0.1", "reserved"),
        ("100.64.0.1", "outside the public internet"),  # carrier-grade NAT
        ("::1", "loopback"),
        ("::", "unspecified"),
        ("fe80::1", "link-local"),
        ("fc00::1", "private"),
        ("ff02::1", "multicast"),
        ("::ffff:127.0.0.1", "loopback"),
        ("::ffff:10.0.0.1", "private"),
        ("::ffff:169.254.169.254", "link-local"),
        ("2002:7f00:1::", "loopback"),  # 6to4 around 127.0.0.1
    ],
)
def test_addresses_outside_the_public_internet_are_refused(address, why):
    reason = check_address(ipaddress.ip_address(address))
    assert reason is not None and why in reason


@pytest.mark.parametrize("address", ["93.184.216.34", "1.1.1.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"])
def test_public_addresses_pass(address):
    assert check_address(ipaddress.ip_address(address)) is None


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("http://127.0.0.1/hook", "loopback"),
        ("http://10.0.0.7:6379/", "private"),
        ("http://169.254.169.254/latest/meta-data/", "link-local"),
        ("http://[::1]/hook", "loopback"),
        ("http://[::ffff:127.0.0.1]/hook", "loopback"),
        ("https://localhost/hook", "resolves to a loopback"),
        ("ftp://example.com/hook", "only http:// and https://"),
        ("file:///etc/passwd", "only http:// and https://"),
        ("http://user:secret@example.com/", "credentials"),
        ("http:///hook", "no host"),
        ("http://example.com:99999/", "port"),
        ("http://example.com/a b", "whitespace"),
        ("http://no-such-host.invalid/hook", "does not resolve"),
    ],
)
async def test_urls_are_refused_with_the_reason(url, why):
    with pytest.raises(UrlRefused, match=why):
        await resolve(url, allow_private=False)


async def test_the_operator_may_allow_private_addresses_but_never_other_schemes():
    target = await resolve("http://localhost:8080/hook?x=1", allow_private=True)
    assert (target.host, target.port, target.target) == ("localhost", 8080, "/hook?x=1")
    assert ipaddress.ip_address(target.address).is_loopback
    with pytest.raises(UrlRefused):
        await resolve("gopher://localhost/", allow_private=True)


# --- one attempt, against real servers ------------------------------------------------------------
@contextlib.contextmanager
def raw_server(serve: Callable[[socket.socket], None]) -> Iterator[tuple[str, list[bytes]]]:
    """A TCP server on loopback that hands each connection to *serve*; yields its base URL and the
    requests it read (their first bytes)."""
    listener = socket.create_server(("127.0.0.1", 0))
    requests: list[bytes] = []
    stop = threading.Event()

    def loop() -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with conn:
                conn.settimeout(5)
                with contextlib.suppress(OSError):
                    requests.append(read_request(conn))
                    serve(conn)

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}", requests
    finally:
        stop.set()
        thread.join(2)
        listener.close()


def read_request(conn: socket.socket) -> bytes:
    """A whole request: its head, and as many bytes of body as its Content-Length says."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = int(header(head, "content-length") or 0)
    while len(body) < length:
        chunk = conn.recv(65536)
        if not chunk:
            break
        body += chunk
    return head + b"\r\n\r\n" + body


def answering(status: str, body: bytes = b"", extra: bytes = b"") -> Callable[[socket.socket], None]:
    def serve(conn: socket.socket) -> None:
        conn.sendall(
            f"HTTP/1.1 {status}\r\nContent-Length: {len(body)}\r\nConnection: close\r\n".encode()
            + extra
            + b"\r\n"
            + body
        )

    return serve


def header(request: bytes, name: str) -> str | None:
    for line in request.split(b"\r\n\r\n", 1)[0].decode().split("\r\n")[1:]:
        key, _, value = line.partition(":")
        if key.strip().lower() == name:
            return value.strip()
    return None


async def test_a_delivery_is_signed_with_every_live_secret_and_verifies_with_either():
    old, new = new_secret(), new_secret()
    body = '{"type":"game.turn","timestamp":"2026-12-01T00:00:00+00:00","data":{}}'
    sender = Sender(allow_private=True)
    try:
        with raw_server(answering("200 OK", b"thanks")) as (base, requests):
            attempt = await sender.send(f"{base}/hook", "msg_1_g_x", body, [new, old], datetime.now(UTC))
    finally:
        await sender.close()
    assert attempt.succeeded and attempt.status_code == 200 and attempt.excerpt == "thanks"
    request = requests[0]
    assert request.startswith(b"POST /hook HTTP/1.1")
    headers = {
        name: header(request, name)
        for name in ("webhook-id", "webhook-timestamp", "webhook-signature", "host", "content-type")
    }
    assert headers["webhook-id"] == "msg_1_g_x"
    assert len(headers["webhook-signature"].split(" ")) == 2
    assert headers["host"] == base.removeprefix("http://")
    sent = request.split(b"\r\n\r\n", 1)[1]
    for secret in (old, new):
        assert Webhook(secret).verify(sent, headers) == {
            "type": "game.turn",
            "timestamp": "2026-12-01T00:00:00+00:00",
            "data": {},
        }
    with pytest.raises(Exception, match="No matching signature"):
        Webhook(new_secret()).verify(sent, headers)


@pytest.mark.parametrize(
    ("serve", "status", "error"),
    [
        (answering("500 Internal Server Error", b"x" * 5000), 500, "HTTP 500"),
        (
            answering("302 Found", extra=b"Location: http://169.254.169.254/\r\n"),
            302,
            "HTTP 302: redirects are not followed",
        ),
        (answering("404 Not Found"), 404, "HTTP 404"),
    ],
)
async def test_anything_but_a_2xx_is_a_failed_attempt_and_redirects_are_not_followed(serve, status, error):
    sender = Sender(allow_private=True)
    try:
        with raw_server(serve) as (base, requests):
            attempt = await sender.send(f"{base}/hook", "msg_1_g_x", "{}", [new_secret()], datetime.now(UTC))
    finally:
        await sender.close()
    assert not attempt.succeeded
    assert (attempt.status_code, attempt.error) == (status, error)
    assert len(attempt.excerpt) <= 1024
    assert len(requests) == 1  # the redirect's target was never asked


def hanging(conn: socket.socket) -> None:
    time.sleep(4)


def trickling(conn: socket.socket) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n")
    for _ in range(40):
        conn.sendall(b"x")
        time.sleep(0.1)


@pytest.mark.parametrize("serve", [hanging, trickling], ids=["silent", "trickling"])
async def test_a_receiver_that_hangs_or_trickles_is_cut_at_the_whole_requests_bound(serve):
    # A trickling answer resets httpx's read timeout with every byte: only the attempt's own
    # deadline cuts it.
    sender = Sender(allow_private=True, request_seconds=1.0)
    try:
        with raw_server(serve) as (base, _):
            started = time.monotonic()
            attempt = await sender.send(f"{base}/hook", "msg_1_g_x", "{}", [new_secret()], datetime.now(UTC))
            took = time.monotonic() - started
    finally:
        await sender.close()
    assert took < 1.5
    assert not attempt.succeeded and attempt.error == "no answer within 1 s"
    assert 900 <= attempt.duration_ms < 2000


async def test_a_refused_connection_is_a_failed_attempt():
    with socket.create_server(("127.0.0.1", 0)) as probe:
        port = probe.getsockname()[1]
    sender = Sender(allow_private=True)
    try:
        attempt = await sender.send(
            f"http://127.0.0.1:{port}/", "msg_1_g_x", "{}", [new_secret()], datetime.now(UTC)
        )
    finally:
        await sender.close()
    assert not attempt.succeeded and attempt.status_code is None and "ConnectError" in (attempt.error or "")


async def test_each_attempt_checks_the_address_it_connects_to():
    """A name that resolved to a public address at subscription may resolve to a private one at
    delivery (DNS rebinding): the attempt resolves it again, checks, and never connects."""
    sender = Sender(allow_private=False)
    with raw_server(answering("200 OK")) as (base, requests):
        port = base.rsplit(":", 1)[1]
        try:
            attempt = await sender.send(
                f"http://localhost:{port}/hook", "msg_1_g_x", "{}", [new_secret()], datetime.now(UTC)
            )
        finally:
            await sender.close()
    assert not attempt.succeeded and attempt.status_code is None
    assert attempt.error is not None and attempt.error.startswith("refused: ") and "loopback" in attempt.error
    assert requests == []
