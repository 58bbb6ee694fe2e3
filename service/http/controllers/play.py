"""The reference web client: the files of ``service/web`` served at ``/play/`` (no build step), and
``/`` and ``/play`` sending a browser there (the page's asset URLs are relative to ``/play/``).
None of it is part of the API, so none of it is in the OpenAPI document.

Its pages run only the scripts and styles of their own files (no inline script or style: see
:data:`SECURITY_HEADERS`), cannot be framed, and send no referrer."""

from __future__ import annotations

import mimetypes
from pathlib import Path
from typing import Any

from litestar import Request, Router, get
from litestar.datastructures import MutableScopeHeaders
from litestar.response import Redirect
from litestar.static_files import create_static_files_router
from litestar.types import ASGIApp, Message, Receive, Scope, Send

WEB = Path(__file__).resolve().parents[2] / "web"
"""``service/web``: shipped as package data, so it sits beside the installed ``service`` package too."""

# The installable app's manifest (the static files take their type from the name; a system's
# mime.types may not know this one) and its service worker, ``/play/sw.js``, whose scope is
# ``/play/`` by where it is served (no Service-Worker-Allowed needed).
mimetypes.add_type("application/manifest+json", ".webmanifest")
mimetypes.add_type("text/javascript", ".js")


@get("/", include_in_schema=False)
async def home() -> Redirect:
    return Redirect(path="/play/")


async def _slash(request: Request[Any, Any, Any]) -> Redirect | None:
    """``/play`` without its slash would resolve ``assets/app.js`` against ``/``.  Litestar routes
    ``/play`` and ``/play/`` alike, so the raw path tells them apart (granian and uvicorn both send
    it; a static server elsewhere redirects a folder to its slash itself)."""
    if request.scope.get("raw_path") == b"/play":
        query = f"?{request.url.query}" if request.url.query else ""
        return Redirect(path=f"/play/{query}")
    return None


play_files = create_static_files_router(
    path="/play",
    directories=[WEB],
    html_mode=True,
    name="play",
    include_in_schema=False,
    before_request=_slash,
)

CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",  # the page's empty icon is a data: URL
        "worker-src 'self'",  # the service worker (sw.js): offline pages and push notifications
        "manifest-src 'self'",  # the installable app's manifest
        # The page may drive a Yamen on another origin (?api=...): its requests and event streams.
        "connect-src *",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'none'",
        "frame-ancestors 'none'",
    ]
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",  # frame-ancestors, for browsers without CSP 2
}
"""Scripts and styles from the client's own files only (an injected ``<script>`` or ``style=`` does
not run), never framed (clickjacking a move), files never sniffed as another type, and no URL
(``?api=``) sent to a site a page links to."""


class SecurityHeaders:
    """:data:`SECURITY_HEADERS` on every answer of the client's routes: its files are sent as ASGI
    file responses, which a router's ``response_headers`` never reach."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableScopeHeaders.from_message(message)
                for name, value in SECURITY_HEADERS.items():
                    headers[name] = value
            await send(message)

        await self.app(scope, receive, with_headers)


PlayRouter = Router(
    path="/",
    route_handlers=[home, play_files],
    include_in_schema=False,
    middleware=[SecurityHeaders],
)
