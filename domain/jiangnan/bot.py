"""Solo Bot Rules: the Bot's turn per district, its Upkeep and its difficulty levels.

The Bot is not a seat: its turns are resolved automatically (inside ``decide``) when the turn order
reaches it; its random draws (Action Tile from its bag, Portfolio and Muse stacks) are in events.
Levels (each adds to the previous): Easy; Normal (1 VP per Coin at the end); Hard (publishing
payout); Expert (Upkeep income of published Portfolios, Novels for free); Master (Servants on the
Display Tiles, their Coins / VP on visits and in Upkeep); Nightmare (Juren degree); Inferno (Gongshi).
"""

from __future__ import annotations

from . import components as C
from .events import (
    BotMuseHired,
    BotTileDrawn,
    DisplayTileAdded,
    OrderMarkerPlaced,
    PortfolioPublished,
    PortfolioTaken,
    ScholarPlaced,
    Travelled,
    TurnEnded,
)
from .play import Play, gain
from .portfolios import draw_from_stack
from .table import level, servants_on_display

HARD, EXPERT, MASTER = 2, 3, 4


def bot_publish(scratch: Play, bot: int, district: str | None) -> None:
    """Draw the top Portfolio of the stack and publish it for free (Hard: with the payout);
    in the Teahouse / Tavern a Display Tile is placed (Master: with a Bot Servant)."""
    state = scratch.state
    pid = draw_from_stack(scratch)
    if pid is None:
        return
    scratch.emit(
        PortfolioTaken(seat=bot, portfolio=pid, source="stack"),
        PortfolioPublished(seat=bot, portfolio=pid, where="bot"),
    )
    d = C.PORTFOLIOS[pid]
    if level(state) >= HARD:
        gain(scratch, bot, d["payout"], "publishing payout")
    if district is not None and state.display_supply[d["type"]] > 0:
        scratch.emit(
            DisplayTileAdded(district=district, kind=d["type"], seat=bot if level(state) >= MASTER else -1)
        )


def bot_turn(scratch: Play, bot: int) -> None:
    """On the Bot's turn: draw an Action Tile from its bag, place a Scholar below its district and
    act there (a full district sends the Scholar to the Rest Area)."""
    state = scratch.state
    player = state.p[bot]
    tile = scratch.rng.choice(player.bag)
    scratch.emit(BotTileDrawn(seat=bot, tile=tile))
    d = C.ACTION_TILES[tile]["districts"][0]
    if len(state.tracks[d]) >= C.SCHOLAR_SPACES:  # assumed: a full district sends the Bot's Scholar to rest
        d = C.REST
    scratch.emit(ScholarPlaced(seat=bot, district=d))
    if d == "society":
        if not player.society_visited:
            scratch.emit(OrderMarkerPlaced(seat=bot))
        bot_publish(scratch, bot, None)
    elif d in ("teahouse", "tavern"):
        if level(state) >= MASTER:  # checks its Servants there: Coins (Teahouse) / VP (Tavern)
            key = "coin" if d == "teahouse" else "vp"
            gain(scratch, bot, {key: servants_on_display(state, d, bot)}, f"{d} servants")
        bot_publish(scratch, bot, d)
    elif d == "parlour":
        if state.muse_stack:  # hires the top Muse of the stack at once
            scratch.emit(BotMuseHired(seat=bot, muse=scratch.rng.choice(state.muse_stack)))
    elif d == "travel":
        for path in C.BOT_PATHS:  # a whole path for free, paths A, B, C, D in order
            todo = [city for city in path if city not in player.cities]
            if todo:
                for city in todo:
                    scratch.emit(Travelled(seat=bot, city=city))
                break
    # assumed: at the Temple Fair (not in the Bot's list) and in the Rest Area the Bot only places a Scholar.
    scratch.emit(TurnEnded(seat=bot))


def bot_income(scratch: Play, bot: int) -> None:
    """Upkeep: no income below Expert; Expert: Drama Coins and Novel VP (for free); Master: also
    the Teahouse and Tavern Servants.  Never Assistant Powers."""
    state = scratch.state
    if level(state) >= EXPERT:
        player = state.p[bot]
        coins = sum(C.PORTFOLIOS[pid]["income"].get("coin", 0) for pid in player.published)
        vp = sum(C.PORTFOLIOS[pid]["income"].get("vp", 0) for pid in player.published)
        gain(scratch, bot, {"coin": coins, "vp": vp}, "bot income")
    if level(state) >= MASTER:
        gain(
            scratch,
            bot,
            {
                "coin": servants_on_display(state, "teahouse", bot),
                "vp": servants_on_display(state, "tavern", bot),
            },
            "bot servants",
        )
