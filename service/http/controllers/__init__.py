"""One controller per resource: the catalogue, games and their seats, moves, history and audit,
operations, and apps' webhooks."""

from litestar.types import ControllerRouterHandler

from .admin import AdminController
from .audit import AuditController
from .catalogue import CatalogueController
from .games import GamesController
from .history import HistoryController
from .moves import MovesController
from .operations import OperationsController
from .play import PlayRouter
from .players import GuestsController, MeController, PlayersController, SeatTokenController
from .push import PushController
from .ratings import RatingsController
from .seeks import MySeeksController, SeeksController
from .webhooks import WebhooksController

CONTROLLERS: list[ControllerRouterHandler] = [
    OperationsController,
    CatalogueController,
    GamesController,
    MovesController,
    HistoryController,
    AuditController,
    PlayersController,
    MeController,
    GuestsController,
    SeatTokenController,
    AdminController,
    WebhooksController,
    RatingsController,
    SeeksController,
    MySeeksController,
    PushController,
    PlayRouter,  # the reference web client at /play (not in the OpenAPI document)
]

__all__ = ["CONTROLLERS"]
