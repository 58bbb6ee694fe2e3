"""The catalogue: the games hosted here and their component data."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Controller, get
from litestar.params import PathParameter

from ...application.documents import Catalogue
from ...application.errors import UnknownKind
from ..dependencies import App
from ..problems import problems


class CatalogueController(Controller):
    path = "/v1/catalogue"
    tags = ("catalogue",)

    @get(
        "/",
        operation_id="getCatalogue",
        summary="The games hosted here, their player counts and options",
        responses=problems(),
    )
    async def catalogue(self, application: App) -> Catalogue:
        return application.reads.catalogue()

    @get(
        "/{kind:str}/components",
        operation_id="getComponents",
        summary="A game's component data (tiles, cards, tracks) for rendering; assumed values are marked",
        responses=problems(UnknownKind),
    )
    async def components(
        self, kind: Annotated[str, PathParameter(max_length=64)], application: App
    ) -> dict[str, Any]:
        return application.reads.components(kind)
