"""One controller per resource: the catalogue, games and their seats, moves, history and audit,
and operations."""

from .audit import AuditController
from .catalogue import CatalogueController
from .games import GamesController
from .history import HistoryController
from .moves import MovesController
from .operations import OperationsController
from .play import PlayRouter

CONTROLLERS = [
    OperationsController,
    CatalogueController,
    GamesController,
    MovesController,
    HistoryController,
    AuditController,
    PlayRouter,  # the reference web client at /play (not in the OpenAPI document)
]

__all__ = ["CONTROLLERS"]
