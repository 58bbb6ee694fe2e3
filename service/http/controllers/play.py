"""The reference web client: the files of ``service/web`` served at ``/play/`` (no build step), and
``/`` and ``/play`` sending a browser there (the page's asset URLs are relative to ``/play/``).
None of it is part of the API, so none of it is in the OpenAPI document."""

from __future__ import annotations

from pathlib import Path

from litestar import Request, Response, Router, get
from litestar.response import Redirect
from litestar.static_files import create_static_files_router

WEB = Path(__file__).resolve().parents[2] / "web"
"""``service/web``: shipped as package data, so it sits beside the installed ``service`` package too."""


@get("/", include_in_schema=False)
async def home() -> Redirect:
    return Redirect(path="/play/")


async def _slash(request: Request) -> Response | None:
    """``/play`` without its slash would resolve ``assets/app.js`` against ``/``.  Litestar routes
    ``/play`` and ``/play/`` alike, so the raw path tells them apart (a server that sends none gets
    index.html, whose first script does the same redirect)."""
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

PlayRouter = Router(path="/", route_handlers=[home, play_files], include_in_schema=False)
