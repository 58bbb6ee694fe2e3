"""One-line narration of an event for replays."""

from __future__ import annotations

from typing import Any

from . import events as E


def describe(state: Any, event: Any) -> str:
    who = f"seat {getattr(event, 'seat', '?')}"
    match event:
        case E.GameSetUp():
            branches = ", ".join(event.starting)
            return (
                f"{event.players} players; starting branches {branches}; seat {event.start_player} starts"
                f" (rules {event.rules_version})"
            )
        case E.RoundStarted():
            return f"round {event.round} begins; seat {event.start_player} is the starting player"
        case E.DiceRolled():
            return "dice rolled: " + " ".join(str(v) for v in event.values if v)
        case E.PublicDiceRolled():
            return "public dice rolled: " + " ".join(str(v) for v in event.values if v)
        case E.PublicDiePlaced():
            where = f"the {event.action.replace('_', ' ')} resting area" if event.action else "out of play"
            return f"{who} puts public die {event.die} in {where}"
        case E.StorylineChosen():
            return f"storyline card {event.storyline} is chosen; its Yamen tile {event.tile} is held all game"
        case E.StartingBranchPlaced():
            return f"{who} places Taiyuan on {event.region}"
        case E.EventCardRevealed():
            dice = ", ".join(
                f"{d.value} {'on' if d.space else 'beside'} {d.action.replace('_', ' ')}" for d in event.dice
            )
            return f"event card {event.card} is flipped; public dice: {dice or 'none'}"
        case E.RoundGoalMet():
            return f"the round goal of {event.card} is met"
        case E.RewardClaimed():
            return f"{who} {'takes' if event.accept else 'declines'} the reward of {event.card}" + (
                " (kept: ongoing)" if event.ongoing else ""
            )
        case E.SilverGained():
            return f"{who} gains {event.amount} silver ({event.reason})"
        case E.DieTakenBack():
            return f"{who} takes back die {event.die} for an extra action and rerolls it: {event.value}"
        case E.DecisionQueued():
            return (
                "waiting for: " + ", ".join(f"{f.kind} (seat {f.seat})" for f in event.frames)
                if event.frames
                else "bonus taken"
            )
        case E.PhaseStarted():
            return f"{event.phase} phase"
        case E.DieAdjusted():
            return f"{who} sets die {event.die} to {event.value} ({event.skill})"
        case E.SilverRecalled():
            return f"{who} pays {event.cost} copper to bring a silver from {event.region} to the head office"
        case E.CopperConverted():
            return f"{who} converts {10 * event.silver} copper into {event.silver} silver"
        case E.PreparationEnded():
            return f"{who} is ready"
        case E.DieRerolled():
            return f"{who} pays {event.cost} to reroll die {event.die}: {event.value}"
        case E.DieDiscarded():
            return f"{who} discards die {event.die} for {event.copper} copper"
        case E.DieDeclined():
            return f"{who} declines to act with die {event.die}"
        case E.DieDispatched():
            money = (
                f", {'gains' if event.copper >= 0 else 'pays'} {abs(event.copper)} copper"
                if event.bumped >= 0
                else ""
            )
            bumped = f", bumping die {event.bumped}" if event.bumped >= 0 else ""
            return f"{who} sends a {event.value} to {event.action.replace('_', ' ')}{bumped}{money}"
        case E.BranchTilesDrawn():
            return f"{who} pays {event.cost} copper and draws {event.count} Tier-{event.tier} tiles"
        case E.BranchOpened():
            return f"{who} opens {event.tile.split('#')[0]} in {event.region} with {event.capital} silver"
        case E.BranchTilesReturned():
            return f"{who} puts {event.count} tiles at the bottom of the Tier-{event.tier} stack"
        case E.ReputationGained():
            return f"{who} gains {event.amount} reputation" + (
                f" for {event.cost} copper" if event.cost else ""
            )
        case E.CopperGained():
            return f"{who} gains {event.amount} copper ({event.reason})"
        case E.TellerPlaced():
            return (
                f"{who} places a branch teller on {event.target}"
                if event.target
                else f"{who} has nowhere to place a teller"
            )
        case E.TellersRecalled():
            return f"{who} recalls {event.count} branch tellers"
        case E.SilverMoved():
            return (
                f"{who} moves a silver from {event.source} to {event.dest}"
                if event.dest
                else f"{who} moves no silver"
            )
        case E.EntrySkillDecided():
            return f"{who} {'uses' if event.use else 'skips'} {event.skill}"
        case E.ExchangeCardsDrawn():
            return f"{who} draws {event.count} exchange card(s)"
        case E.DeckReshuffled():
            return f"the {event.count} discarded exchange cards are reshuffled"
        case E.ExchangeCardChosen():
            return f"{who} keeps one exchange card"
        case E.ExchangePlaced():
            return (
                f"{who} places exchange {event.card} for {event.months} month(s): "
                f"deposit {event.deposit}, withdraw {event.withdraw}, fee {event.fee}"
            )
        case E.ExchangeDiscarded():
            return f"{who} cannot place exchange {event.card} and discards it"
        case E.SilverLent():
            return f"{who} lends {event.amount} silver for {event.months} month(s)"
        case E.DepositAccepted():
            return f"{who} accepts a deposit of 2 silver for {event.months} month(s)"
        case E.YamenTileTaken():
            return f"{who} takes Yamen tile {event.tile} for {event.copper} copper and {event.silver} silver"
        case E.IncomeCollected():
            return f"{who} collects {event.copper} copper"
        case E.LoansReturned():
            return f"{who}: {event.silver} lent silver return"
        case E.DepositInterestPaid():
            return f"{who} pays {event.interest} copper deposit interest"
        case E.DepositSilverReturned():
            return f"{who} returns {event.silver} deposit silver" + (
                f" ({event.shortfall} unpaid)" if event.shortfall else ""
            )
        case E.EmergencyTransfer():
            fee = (
                f"{event.copper} copper"
                if event.copper
                else (f"a silver from {event.fee_source}" if event.fee_source else "nothing")
            )
            return f"{who} ships a silver from {event.source} to {event.dest}, paying {fee}"
        case E.ExchangesAdvanced():
            return f"{who}: {len(event.due)} exchange(s) mature"
        case E.ExchangeOrderChosen():
            return f"{who} resolves exchange {event.card} next"
        case E.ExchangeMatured():
            return (
                f"{who} pays out exchange {event.card} from {event.withdraw}"
                if event.paid
                else f"{who} cannot pay exchange {event.card}"
            )
        case E.PlayerResolved():
            return f"{who} has resolved"
        case E.RoundEnded():
            return f"round {event.round} ends; seat {event.next_start} will start"
        case E.GameEnded():
            return "the game ends"
    return type(event).__name__
