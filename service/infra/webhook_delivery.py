"""Sending one webhook: the guard against server-side request forgery, the signature, the POST.

An endpoint's URL is the app's to choose, and the service sends it requests from inside its own
network, so a URL is a request forgery risk: ``http://169.254.169.254/`` (a cloud's metadata),
``http://10.0.0.5:6379/`` (a Redis), ``http://localhost/``.  :func:`check_url` refuses every URL
that is not http(s) or whose host resolves to an address outside the public internet (loopback,
private, link-local, multicast, reserved, unspecified — IPv4 and IPv6, IPv4-mapped included),
when the endpoint is subscribed and again at each delivery.  A name may resolve to a public
address when it is checked and to a private one a moment later (DNS rebinding), so a delivery
resolves the name once, checks the addresses, and connects to the checked address itself, with the
name in ``Host`` and in TLS's SNI (so the certificate is still checked against the name).
Redirects are not followed (a 3xx is a failed attempt): a redirect is a second URL nobody checked.

Signatures are the Standard Webhooks scheme, made by its reference library (``standardwebhooks``,
the one receivers verify with): ``webhook-id``, ``webhook-timestamp`` and ``webhook-signature``,
one ``v1,<base64>`` signature per live secret, space-separated, so a receiver holding either
secret verifies during a rotation's overlap.

Every request is bounded: 3 s to connect, 10 s for the whole exchange, 1 KiB of the answer read
(for the delivery log), a fresh connection each time (a pooled connection to an address could
carry another endpoint's TLS name).
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import time
import urllib.parse
from dataclasses import dataclass
from datetime import datetime

import httpx
from standardwebhooks import Webhook

CONNECT_SECONDS = 3.0
"""A receiver that does not accept the connection in this long has failed the attempt."""
REQUEST_SECONDS = 10.0
"""The whole attempt — connecting, sending, the answer's status and its first bytes — is cut here."""
EXCERPT_BYTES = 1024
"""How much of a receiver's answer is read and kept in the delivery log."""
MAX_URL_LENGTH = 2000
USER_AGENT = "Yamen-Webhooks/1"


class UrlRefused(Exception):
    """A webhook URL the service will not send to; the message says why."""


def check_address(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str | None:
    """Why the service must not connect to *address* (None: a public address)."""
    if isinstance(address, ipaddress.IPv6Address):
        mapped = address.ipv4_mapped or address.sixtofour
        if mapped is not None:
            reason = check_address(mapped)
            return f"{reason} (IPv4 {mapped} inside {address})" if reason else None
        if address.teredo is not None:
            return f"a Teredo tunnel address ({address})"
    for reason, found in (
        ("unspecified", address.is_unspecified),
        ("loopback", address.is_loopback),
        ("link-local", address.is_link_local),
        ("multicast", address.is_multicast),
        ("reserved", address.is_reserved),
        ("private", address.is_private),
    ):
        if found:
            return f"a {reason} address ({address})"
    if not address.is_global:
        return f"an address outside the public internet ({address})"
    return None


@dataclass(frozen=True, slots=True)
class Target:
    """Where a webhook URL leads: the parsed URL and the address to connect to."""

    scheme: str
    host: str
    """The name (or address literal) in the URL: sent as ``Host`` and as TLS's SNI."""
    port: int
    target: str
    """The path and query, as sent."""
    address: str
    """The checked address the request connects to."""


def parse_url(url: str) -> urllib.parse.SplitResult:
    """*url* split, if it is one the service could send to (scheme, host, no credentials)."""
    if len(url) > MAX_URL_LENGTH:
        raise UrlRefused(f"the URL is longer than {MAX_URL_LENGTH} characters")
    if any(c.isspace() or ord(c) < 32 for c in url):
        raise UrlRefused("the URL contains whitespace or control characters")
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise UrlRefused("only http:// and https:// URLs are accepted")
    if parts.username is not None or parts.password is not None:
        raise UrlRefused("the URL carries credentials (user:password@); sign-in goes by the signature")
    try:
        port = parts.port
    except ValueError:
        raise UrlRefused("the URL's port is not a number from 1 to 65535") from None
    if not parts.hostname:
        raise UrlRefused("the URL names no host")
    if port == 0:
        raise UrlRefused("the URL's port is not a number from 1 to 65535")
    if parts.fragment:
        raise UrlRefused("the URL has a #fragment, which is never sent")
    return parts


async def resolve(url: str, *, allow_private: bool) -> Target:
    """Where *url* leads now, checked: every address its host resolves to must be public (unless
    *allow_private*); :class:`UrlRefused` says why not."""
    parts = parse_url(url)
    host = parts.hostname
    assert host is not None  # parse_url refuses a URL without one
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        literal: ipaddress.IPv4Address | ipaddress.IPv6Address | None = ipaddress.ip_address(host)
    except ValueError:
        literal = None
    if literal is not None:
        addresses = [literal]
    else:
        try:
            found = await asyncio.get_running_loop().getaddrinfo(
                host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP
            )
        except (socket.gaierror, UnicodeError) as exc:
            raise UrlRefused(f"the host {host!r} does not resolve ({exc})") from None
        addresses = list(dict.fromkeys(ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in found))
        if not addresses:
            raise UrlRefused(f"the host {host!r} does not resolve")
    if not allow_private:
        for address in addresses:
            reason = check_address(address)
            if reason is not None:
                which = "is" if literal is not None else "resolves to"
                raise UrlRefused(f"the host {host!r} {which} {reason}")
    target = parts.path or "/"
    if parts.query:
        target += "?" + parts.query
    return Target(parts.scheme, host, port, target, str(addresses[0]))


def sign(secrets: list[str], message_id: str, at: datetime, body: str) -> str:
    """The ``webhook-signature`` header: one signature per secret, space-separated."""
    return " ".join(Webhook(secret).sign(message_id, at, body) for secret in secrets)


@dataclass(frozen=True, slots=True)
class Attempt:
    """What one attempt came to (a delivery log line)."""

    status_code: int | None
    """The receiver's HTTP status; None when no answer came."""
    error: str | None
    """Why the attempt failed; None for a 2xx."""
    duration_ms: int
    excerpt: str
    """The first :data:`EXCERPT_BYTES` of the answer, as text."""

    @property
    def succeeded(self) -> bool:
        return self.error is None


class Sender:
    """Sends signed webhooks, each to an address checked just before (see the module docstring)."""

    def __init__(
        self,
        *,
        allow_private: bool,
        connect_seconds: float = CONNECT_SECONDS,
        request_seconds: float = REQUEST_SECONDS,
    ) -> None:
        self.allow_private = allow_private
        self.connect_seconds = connect_seconds
        self.request_seconds = request_seconds
        self._client = httpx.AsyncClient(
            # No proxy from the environment (it would connect where we did not check), no
            # redirects, no pooled connections (see the module docstring).
            trust_env=False,
            follow_redirects=False,
            timeout=httpx.Timeout(request_seconds, connect=connect_seconds),
            limits=httpx.Limits(max_keepalive_connections=0),
        )

    async def send(self, url: str, message_id: str, body: str, secrets: list[str], at: datetime) -> Attempt:
        """POST *body* to *url*, signed with every secret in *secrets* at *at*; never raises for
        anything the receiver or the network does."""
        started = time.monotonic()

        def failed(error: str, status_code: int | None = None, excerpt: str = "") -> Attempt:
            elapsed = int((time.monotonic() - started) * 1000)
            return Attempt(status_code, error, elapsed, excerpt)

        try:
            target = await resolve(url, allow_private=self.allow_private)
        except UrlRefused as refused:
            return failed(f"refused: {refused}")
        address = f"[{target.address}]" if ":" in target.address else target.address
        default_port = 443 if target.scheme == "https" else 80
        netloc = target.host if ":" not in target.host else f"[{target.host}]"
        if target.port != default_port:
            netloc += f":{target.port}"
        headers = {
            "Host": netloc,
            "Content-Type": "application/json",
            "User-Agent": USER_AGENT,
            "webhook-id": message_id,
            "webhook-timestamp": str(int(at.timestamp())),
            "webhook-signature": sign(secrets, message_id, at, body),
        }
        request = self._client.build_request(
            "POST",
            f"{target.scheme}://{address}:{target.port}{target.target}",
            content=body.encode(),
            headers=headers,
            extensions={"sni_hostname": target.host} if target.scheme == "https" else {},
        )
        try:
            # httpx's timeouts bound each read; a receiver trickling its answer a byte at a time
            # would never trip them, so the whole attempt has a deadline of its own.
            async with asyncio.timeout(self.request_seconds):
                response = await self._client.send(request, stream=True)
                try:
                    excerpt = await _first_bytes(response)
                finally:
                    await response.aclose()
        except TimeoutError:
            return failed(f"no answer within {self.request_seconds:g} s")
        except httpx.ConnectTimeout:
            return failed(f"could not connect within {self.connect_seconds:g} s")
        except httpx.HTTPError as exc:
            return failed(f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__)
        except OSError as exc:
            return failed(f"{type(exc).__name__}: {exc}")
        status = response.status_code
        if 200 <= status < 300:
            return Attempt(status, None, int((time.monotonic() - started) * 1000), excerpt)
        if 300 <= status < 400:
            return failed(f"HTTP {status}: redirects are not followed", status, excerpt)
        return failed(f"HTTP {status}", status, excerpt)

    async def close(self) -> None:
        await self._client.aclose()


async def _first_bytes(response: httpx.Response) -> str:
    """The first :data:`EXCERPT_BYTES` of *response*'s body, as text (the rest is never read)."""
    kept = b""
    async for chunk in response.aiter_bytes():
        kept += chunk
        if len(kept) >= EXCERPT_BYTES:
            break
    return kept[:EXCERPT_BYTES].decode("utf-8", errors="replace")
