"""One set of module-level controllers serves apps with different games: each app's contract
names exactly its own games' commands, events and views."""

from __future__ import annotations

from domain.registry import production_games
from service.codec import tag_of
from service.http.app import create_app
from service.settings import Settings
from tests.fixture_game import GAME as BLUFF

SETTINGS = Settings(database_url=None, redis_url=None, log_format="json", auto_migrate=False, pool_size=1)


def _unions(games):
    app = create_app(games, settings=SETTINGS)
    schemas = app.state.openapi_document(app)["components"]["schemas"]
    _assert_namespaced(schemas)
    named = {
        name: set(schemas[name]["discriminator"]["mapping"])
        for name in ("Command", "Event", "View")
        if name in schemas
    }
    if "View" not in named:  # one game: its view is the view, no union to name
        named["View"] = {
            schemas[schemas["GameDocument"]["properties"]["view"]["$ref"].rsplit("/", 1)[1]]["title"]
        }
    return named


def _assert_namespaced(schemas):
    """Every member of a union is named by its game (``bluff.Claim`` is ``BluffClaim``) and titled
    so, whichever games the app serves: one game's names never depend on another's being there."""
    for union in ("Command", "Event"):
        for tag, ref in schemas.get(union, {}).get("discriminator", {}).get("mapping", {}).items():
            kind, _, name = tag.partition(".")
            assert ref == f"#/components/schemas/{kind.capitalize()}{name}", (tag, ref)
            assert schemas[ref.rsplit("/", 1)[1]]["title"] == ref.rsplit("/", 1)[1]


def test_each_app_names_exactly_its_games():
    production = production_games()
    both = _unions({**production, BLUFF.kind: BLUFF})
    only_bluff = _unions({BLUFF.kind: BLUFF})
    yangtze = _unions({"yangtze": production["yangtze"]})

    assert only_bluff["Command"] == {tag_of(t) for t in BLUFF.command_types}
    assert only_bluff["View"] == {"BluffView"}
    assert both["View"] == {tag_of(g.view_type) for g in (*production.values(), BLUFF)}
    assert yangtze["Command"] == {tag_of(t) for t in production["yangtze"].command_types}
    assert yangtze["Event"] == {tag_of(t) for t in production["yangtze"].event_types}
    assert both["Command"] == {tag_of(t) for g in (*production.values(), BLUFF) for t in g.command_types}
    alone = create_app({BLUFF.kind: BLUFF}, settings=SETTINGS)
    schemas = alone.state.openapi_document(alone)["components"]["schemas"]
    assert {"BluffClaim", "BluffGameSetUp", "BluffCardDrawn", "BluffView"} <= set(schemas)
    # Building one app does not change another's (no state left on the shared controllers).
    assert _unions({BLUFF.kind: BLUFF}) == only_bluff
