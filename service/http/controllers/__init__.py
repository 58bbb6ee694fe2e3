"""One controller per resource: the catalogue, games and their seats, moves, history and audit,
and operations."""

from .audit import AuditController
from .catalogue import CatalogueController
from .games import GamesController
from .history import HistoryController
from .moves import MovesController
from .operations import OperationsController

CONTROLLERS = [
    OperationsController,
    CatalogueController,
    GamesController,
    MovesController,
    HistoryController,
    AuditController,
]

__all__ = ["CONTROLLERS"]
