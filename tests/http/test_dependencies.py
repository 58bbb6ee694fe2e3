"""Every route's dependencies are resolved one after another, never in a task group.

Litestar resolves the dependencies of one depth together: two or more start an anyio task group
per request, with its tasks, cancel scope and events.  A move over HTTP paid about a tenth of its
CPU for that (``application`` and ``caller`` side by side), so ``caller`` names ``application``
and is resolved after it.  This keeps it so, whatever a handler comes to ask for.
"""

from __future__ import annotations

from litestar.routes import HTTPRoute

from tests.conftest import make_app

TOGETHER = {
    # A seat handed to a bot by its holder or by the app that created the game: asked rarely, and
    # ``principal`` (any route) cannot wait for ``caller`` (a route about a game).
    ("PUT", "/v1/games/{game_id:str}/seats/{seat:int}/bot"): {"caller", "principal"},
}


def test_no_route_resolves_its_dependencies_in_a_task_group(database_url):
    app = make_app(database_url, None)
    together = {}
    routes = 0
    for route in app.routes:
        if not isinstance(route, HTTPRoute):
            continue
        for method, (_, kwargs_model) in route.route_handler_map.items():
            routes += 1
            for batch in kwargs_model.dependency_batches:
                if len(batch) > 1:
                    together[(method, route.path)] = {dependency.key for dependency in batch}
    assert routes > 50  # every route was looked at
    assert together == TOGETHER
