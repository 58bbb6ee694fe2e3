"""Income Phase: effective silver, lending interest, Tier-2 income skills and Yamen tiles (solo: the
ongoing event-card income)."""

from __future__ import annotations

from domain.kernel import Scratch

from . import board as B
from . import components as C
from . import events as E
from .state import Player, State


def income_parts(player: Player) -> dict[str, int]:
    """Income Phase 1-4: effective silver by tier, lending interest (by reputation), Tier-2 income
    skills (Tier 2 Branches), Yamen tiles (Yamen Support Tile Reference)."""
    parts: dict[str, int] = {}
    branches = 0
    tier1 = 0
    for r in B.branch_regions(player):
        used = B.effective_used(player, r)
        branches += used * C.INCOME_RATE[C.region_tier(r)]
        if C.TILES[player.regions[r].tile].tier == 1:  # not the starting branch (tier 0)
            tier1 += used
    parts["branches"] = branches
    lent = sum(player.lending)
    parts["lending"] = lent * C.lending_rate(player.reputation)
    skill = 0
    for c in C.COLORS:
        if B.active(player, f"income_{c}"):  # Lu'an and twins
            skill += B.count_color(player, c)
    if B.active(player, "income_rep"):  # Guilin
        skill += player.reputation // 4
    if B.active(player, "income_exchange"):  # Liuzhou
        skill += player.exchange // 3
    parts["branch_skills"] = skill
    yamen = 0
    if "tier1_income" in player.yamen:
        yamen += 2 * tier1
    if "tier2_staffed" in player.yamen:
        staffed = sum(
            1
            for c in C.COLORS
            if player.regions[f"2{c}"].tile
            and (player.regions[f"2{c}"].tellers + player.regions[f"2{c}"].managers)
        )
        yamen += (0, 3, 7, 11)[staffed]
    if "lending_income" in player.yamen:
        yamen += 3 * (lent // 2)
    parts["yamen"] = yamen
    return parts


def collect_income(scratch: Scratch[State]) -> None:
    """Income Phase: every player, in player order, sums the parts and collects the copper."""
    state = scratch.state
    for k in range(state.players):
        seat = (state.start_player + k) % state.players
        parts = income_parts(state.pl[seat])
        extra = sum(
            C.EVENT_CARDS[c].amount for c in state.pl[seat].ongoing if C.EVENT_CARDS[c].reward == "income"
        )
        if extra:  # Solo Rules, Round Goals and Rewards: an ongoing reward
            parts["event_cards"] = extra
        scratch.emit(E.IncomeCollected(seat=seat, copper=sum(parts.values()), parts=parts))
