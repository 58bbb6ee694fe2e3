"""Reading the table: the questions several rules ask of the state (never a change).

The move generator, the rule checks, the effects, the scoring and the view all ask these, so
each is answered in one place.
"""

from __future__ import annotations

from itertools import combinations_with_replacement

from . import components as C
from .state import State

IDEA_PAIRS = [list(pair) for pair in combinations_with_replacement(C.IDEAS, 2)]
"""Every choice of 2 Idea Tiles of any type(s), sorted (Society 3c, Assistant B08)."""


def since(state: State, rules_version: str) -> bool:
    """Whether the game was set up under *rules_version* or later (``State.rules_version``): a rule fixed
    in that version applies, a game set up before keeps the rule it started with."""
    return _number(state.rules_version) >= _number(rules_version)


def _number(rules_version: str) -> int:
    return int(rules_version.rsplit("-", 1)[1])


def to_act(state: State) -> list[int]:
    """The seat of the pending decision (one decision at a time)."""
    if state.finished or not state.steps:
        return []
    return [state.steps[-1].seat]


# --- players ----------------------------------------------------------------------------------
def power(state: State, seat: int) -> str | None:
    """List of Talent Powers: the player's power, if any (a plain Chapter 1 game has no Talents)."""
    t = state.p[seat].talent
    return C.TALENT_POWER.get(t) if t else None


def cost(state: State, seat: int, coins: int) -> int:
    """A district action's cost in Coins (Kou Baimen, A10: pay 0 Coins instead)."""
    return 0 if power(state, seat) == "frugal" else coins


def owner(state: State, colour: int) -> int:
    """The player a colour counts for (2-Player Rules: a vassal counts for its main colour)."""
    return colour - state.players if state.cfg.vassals and colour >= state.players else colour


def scorers(state: State) -> int:
    """Colours that score VP: the seats, plus the solo Bot."""
    return state.players + (1 if state.cfg.bot >= 0 else 0)


def level(state: State) -> int:
    """Solo Bot Rules, Difficulty Settings: 0 Easy ... 6 Inferno."""
    return C.DIFFICULTIES.index(state.cfg.difficulty)


def coins_in(tokens: list[str]) -> int:
    """Coins among Bonus Icons (Player Turn 2: the Discard Bonus may pay this turn's visit)."""
    return sum(1 for t in tokens if t == "coin")


def affordable(state: State, seat: int) -> list[str]:
    """Publish a Portfolio: unpublished Portfolios whose Ideas cost (of their type) you can pay."""
    player = state.p[seat]
    return [
        pid
        for pid in player.unpublished
        if player.ideas[C.PORTFOLIOS[pid]["type"]] >= C.PORTFOLIOS[pid]["cost"]
    ]


def can_take_exam(state: State, seat: int) -> bool:
    """Imperial Exam: Juren without a degree, Gongshi as a Juren; enough Portfolios and Ideas."""
    player = state.p[seat]
    exam = C.EXAMS.get(player.degree + 1)
    return (
        exam is not None
        and len(player.unpublished) >= exam["portfolios"]
        and sum(player.ideas.values()) >= exam["ideas"]
    )


def metric(state: State, seat: int, kind: str) -> int:
    """What a Scoring Trend / Scoring Goal counts for a player."""
    player = state.p[seat]
    if kind in ("drama", "novel", "painting"):
        # Imperial Degree: counts as 1 (Juren) or 2 (Gongshi) published Portfolios of each type.
        return sum(1 for pid in player.published if C.PORTFOLIOS[pid]["type"] == kind) + player.degree
    if kind == "gold":
        return player.coins // 5
    if kind == "assistant":
        return len(player.assistants)
    if kind == "scenery":
        return sum(C.CITY_SCENERY[city] for city in player.cities)
    if kind == "spirit":
        return player.spirit
    if kind == "most_type":
        return max(metric(state, seat, k) for k in ("drama", "novel", "painting"))
    if kind == "least_type":
        return min(metric(state, seat, k) for k in ("drama", "novel", "painting"))
    if kind == "published":
        return sum(metric(state, seat, k) for k in ("drama", "novel", "painting"))
    return 0


# --- the boards -------------------------------------------------------------------------------
def servants_on_display(state: State, district: str, seat: int) -> int:
    """Teahouse 1 / Tavern 3 / Upkeep 1: your Servants on the district's Display Track."""
    return sum(1 for _, owner in state.displays[district] if owner == seat)


def reachable_cities(state: State, seat: int) -> list[str]:
    """Travel: a city not travelled to before, next to Jinling or to a city travelled to."""
    mine = state.p[seat].cities
    return [
        city
        for city in C.CITIES
        if city not in mine and (C.CITY_PREVIOUS[city] is None or C.CITY_PREVIOUS[city] in mine)
    ]


def muses_shown(state: State) -> list[str]:
    """Parlour: the Muse Tiles on display (a hired Muse's space is refilled from the stack)."""
    return [m for m in state.muses if m is not None]


def stack_available(state: State) -> bool:
    """Society 5: a Portfolio can still be drawn (an exhausted Age 1 stack gives the Age 2 one)."""
    return bool(state.stack or state.bottom or (state.portfolio_age == 1 and not state.age2_formed))


def pointed(state: State) -> list[int]:
    """Temple Fair spaces the Special Action Pointer points to (side B/C: two Shops)."""
    return [(state.pointer + k) % C.FAIR_SPACES for k in C.POINTER_OFFSETS[state.cfg.pointer]]


def charm_met(state: State, seat: int) -> bool:
    """Charming Scholar: the requirement of this round's Charm Tile."""
    player = state.p[seat]
    ch = state.charm
    if ch == "A":
        return servants_on_display(state, "teahouse", seat) > 0
    if ch == "B":
        return servants_on_display(state, "tavern", seat) > 0
    if ch == "C":
        boat = state.river[state.districts.index("parlour")]
        return boat >= 0 and any(sp[0] == seat for sp in state.boats[boat].spaces)
    if ch == "D":
        return player.fair in pointed(state)
    if ch == "E":
        return bool(player.cities)
    if ch == "F":
        return len(player.unpublished) >= 2
    return False


# --- boats ------------------------------------------------------------------------------------
def river_boats(state: State) -> list[int]:
    """Boat Tiles on the Long River Boards (below the districts)."""
    return [b for b in state.river if b >= 0]


def my_boats(state: State, seat: int) -> list[int]:
    """Boat Tiles on the river with a Servant of yours (Shop B4, Assistant B14)."""
    return [b for b in river_boats(state) if any(sp[0] == seat for sp in state.boats[b].spaces)]


def boat_ranking(state: State, boat: int) -> list[int]:
    """Resolve Boats: players by most Servants; ties go to the Servants further right (placed
    earlier).  2-Player Rules: a vassal's Servants count for its main colour (and win its ties
    from the rightmost space); Talents A07/A14 win ties."""
    counts: dict[int, int] = {}
    first: dict[int, int] = {}
    for index, (colour, count) in enumerate(state.boats[boat].spaces):
        if colour >= 0 and count > 0:
            o = owner(state, colour)
            counts[o] = counts.get(o, 0) + count
            first.setdefault(o, index)
    return sorted(
        counts, key=lambda seat: (-counts[seat], 0 if power(state, seat) == "captain" else 1, first[seat])
    )


def boat_servants(state: State, boat: int, seat: int | None = None) -> int:
    """Servants on a boat (of one player, vassal included, or of everybody)."""
    return sum(
        count
        for colour, count in state.boats[boat].spaces
        if colour >= 0 and (seat is None or owner(state, colour) == seat)
    )
