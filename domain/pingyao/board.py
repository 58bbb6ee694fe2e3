"""Derived facts about a player's board (no state changes)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from . import components as C
from .state import State


class RegionBoard(Protocol):
    """A region of a player board as these helpers read it: the rules' ``state.Region`` or what a
    seat's view shows of it (``view.PingyaoRegionView``, which the bots read)."""

    @property
    def tile(self) -> str: ...
    @property
    def silver(self) -> int: ...
    @property
    def tellers(self) -> int: ...
    @property
    def managers(self) -> int: ...
    @property
    def waiting(self) -> int: ...


class PlayerBoard(Protocol):
    """A player board as these helpers read it: the rules' ``state.Player`` or a seat's view of it
    (``view.PingyaoPlayerView``)."""

    @property
    def regions(self) -> Mapping[str, RegionBoard]: ...
    @property
    def head_office(self) -> int: ...
    @property
    def reputation(self) -> int: ...
    @property
    def exchange(self) -> int: ...
    @property
    def yamen(self) -> Sequence[str]: ...


def tile_of(player: PlayerBoard, region: str) -> C.Tile | None:
    t = player.regions[region].tile
    return C.TILES[t] if t else None


def branch_regions(player: PlayerBoard) -> list[str]:
    return [r for r in C.REGIONS if player.regions[r].tile]


def colors_of(player: PlayerBoard, where: str) -> tuple[str, ...]:
    """The head office is a three-colour piaohao; Kaifeng is treated as all three colours."""
    if where == C.HEAD_OFFICE:
        return C.COLORS
    tile = tile_of(player, where)
    if tile is not None and tile.skill == "tricolor":
        return C.COLORS
    return (C.region_color(where),)


def piaohaos(player: PlayerBoard) -> list[str]:
    """West Street: "Your Pingyao Head Office and each tier of branch are all treated as piaohao"."""
    return [C.HEAD_OFFICE, *branch_regions(player)]


def silver_at(player: PlayerBoard, where: str) -> int:
    return player.head_office if where == C.HEAD_OFFICE else player.regions[where].silver


def skills(player: PlayerBoard) -> list[str]:
    return [C.TILES[player.regions[r].tile].skill for r in branch_regions(player)]


def active(player: PlayerBoard, skill: str) -> str | None:
    """Actions / Branch Skill Reference: the region of a branch whose skill is active - its teller
    positions are filled (a branch without teller positions is active from the start)."""
    for r in C.REGIONS:
        t = player.regions[r].tile
        if t:
            tile = C.TILES[t]
            if tile.skill == skill and player.regions[r].tellers >= tile.positions:
                return r
    return None


def count_color(player: PlayerBoard, color: str) -> int:
    """Lu'an / Guangzhou and twins: branches of a colour ("a branch's skill-granted color also counts")."""
    return sum(1 for r in branch_regions(player) if color in colors_of(player, r))


def effective_used(player: PlayerBoard, region: str) -> int:
    """Actions: "only the silver up to its stated effective silver amount produces income";
    each branch teller on a management position adds 1 (Tier 2 at most 1, Tier 3 at most 2)."""
    r = player.regions[region]
    tile = C.TILES[r.tile]
    return min(r.silver, tile.effective + r.managers)


def open_position(player: PlayerBoard, region: str, slot: str) -> bool:
    """Confucius Temple: a free branch-teller position - the tile's teller position ("Once all of a
    branch's teller-position slots are filled, no further branch tellers may be dispatched to that
    branch"), a management position (Tier 2 at most 1, Tier 3 at most 2), or a branch-less region
    without a waiting teller ("at most one such waiting branch teller")."""
    r = player.regions.get(region)
    if r is None:
        return False
    if not r.tile:
        return slot == "wait" and r.waiting == 0
    if slot == "teller":
        return r.tellers < C.TILES[r.tile].positions
    if slot == "manager":
        return r.managers < C.MANAGEMENT[C.region_tier(region)]
    return False


TELLER_SLOTS = ("teller", "manager", "wait")


def teller_targets(player: PlayerBoard, only: str = "") -> list[str]:
    """Every free position ("<region>:teller" | ":manager" | ":wait"), or only those of one region."""
    return [
        f"{r}:{slot}"
        for r in ((only,) if only else C.REGIONS)
        for slot in TELLER_SLOTS
        if open_position(player, r, slot)
    ]


def has_teller_target(player: PlayerBoard) -> bool:
    return any(open_position(player, r, slot) for r in C.REGIONS for slot in TELLER_SLOTS)


def tellers_on_branches(player: PlayerBoard) -> int:
    """Game End 5: branch tellers on branch positions (waiting ones on empty regions do not count)."""
    return sum(player.regions[r].tellers + player.regions[r].managers for r in branch_regions(player))


def silver_total(state: State) -> int:
    total = state.supply_silver
    for p in state.pl:
        total += p.head_office + sum(r.silver for r in p.regions.values()) + sum(p.lending) + p.deposit_area
    return total


def tiles_left(state: State, tier: int) -> int:
    return len(state.stacks[str(tier)]) + len(state.bottoms[str(tier)])


def cards_left(state: State) -> int:
    return len(state.deck) + len(state.deck_bottom) + len(state.discards)
