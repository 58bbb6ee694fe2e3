"""The web client's pages run only the scripts and styles of their own files, cannot be framed,
are never sniffed as another type and send no referrer; and its files hold nothing inline that
such a policy would stop (so the policy breaks nothing)."""

from __future__ import annotations

import pathlib
import re

import pytest

WEB = pathlib.Path(__file__).resolve().parents[2] / "service" / "web"


@pytest.mark.parametrize(
    "path", ["/play/", "/play/index.html", "/play/assets/app.js", "/play/assets/app.css"]
)
async def test_the_client_is_served_with_security_headers(client, path):
    response = await client.get(path)
    assert response.status_code == 200
    policy = {
        directive.split()[0]: directive.split()[1:]
        for directive in response.headers["content-security-policy"].split(";")
        if directive.strip()
    }
    assert policy["script-src"] == ["'self'"] and policy["style-src"] == ["'self'"]
    assert policy["default-src"] == ["'self'"] and policy["frame-ancestors"] == ["'none'"]
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["referrer-policy"] == "no-referrer"
    assert response.headers["x-frame-options"] == "DENY"


async def test_the_api_itself_is_not_framed_by_the_pages_policy(client):
    """The policy is the page's: a JSON answer carries none (a page elsewhere reads it by CORS)."""
    assert "content-security-policy" not in (await client.get("/v1/catalogue")).headers


def test_the_client_has_no_inline_script_or_style():
    for page in WEB.rglob("*.html"):
        html = page.read_text()
        for tag in re.findall(r"<script\b[^>]*>", html):
            assert "src=" in tag, (page, tag)  # every script is a file
        assert "<style" not in html and not re.search(r"\sstyle=", html), page
        assert not re.search(r"\son[a-z]+=", html), page  # no inline event handlers
    for script in WEB.rglob("*.js"):
        text = script.read_text()
        # Markup the scripts build: no style attribute (SVG's font-style= is a presentation attribute,
        # which the policy allows), no <style> element, no inline handler, no javascript: URL.
        assert not re.search(r"(?<![-\w])style=", text), script
        assert "<style" not in text and "javascript:" not in text, script
        assert not re.search(r"<[a-z][^>]*\son(click|load|error|change|input|submit)=", text), script
