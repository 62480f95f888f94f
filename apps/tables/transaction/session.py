"""The session state machine, called by services with a locked ``Ctx``: start, piao window, deal
(seed commitment first), deadlines, settlement, dealer rotation, session end.
"""

from __future__ import annotations

import random
import secrets
from datetime import datetime, timedelta

from django.conf import settings

from apps.engine import settle
from apps.engine.play.hand import Hand as EngineHand
from apps.engine.records.chain import seed_commitment
from apps.engine.rules import RuleSet
from apps.tables.models import (
    NEXT_HAND_SECONDS,
    PIAO_ARRIVAL_SECONDS,
    PIAO_SECONDS,
    Hand,
    HandStatus,
    Stage,
    Table,
    TableStatus,
)
from apps.tables.signals import hand_finished, session_policy, table_finished
from apps.tables.storage import rows
from apps.tables.storage.jsontext import jsonable
from apps.tables.transaction import nearby
from apps.tables.transaction.context import Ctx, now


def maybe_start(ctx: Ctx) -> None:
    """Everyone seated and ready: the session starts (or the next hand does)."""
    table = ctx.table
    if not table.is_open or table.stage not in (Stage.SEATING, Stage.SETTLE):
        return
    if not all(s.taken and s.ready for s in ctx.seats):
        return
    if policy(table)["hold"]:
        return  # held (a paused match): arranged.arranged_release starts it later
    if table.status == TableStatus.WAITING:
        table.status = TableStatus.PLAYING
        ctx.event("table.start", {"dealer": table.dealer})
        # No one shares a position once the table plays: the ones shared are measured, and go.
        nearby.drop_positions(table_id=table.pk, user_ids=[s.user_id for s in ctx.seats if s.user_id])
    if table.piao_choices:
        open_piao(ctx)
    else:
        deal(ctx)


def open_piao(ctx: Ctx) -> None:
    table = ctx.table
    table.stage = Stage.PIAO
    for seat in ctx.seats:
        seat.piao = table.piao_choices[0] if seat.autoplay else None
        ctx.touch(seat)
    set_deadline(table, "piao", PIAO_SECONDS, seats=[s.index for s in ctx.seats if s.piao is None])
    if awaits_arrival(table):
        at = now()
        table.deadline_info["arrive_by"] = (at + timedelta(seconds=PIAO_ARRIVAL_SECONDS)).isoformat()
        table.deadline_info["arrived"] = {str(s.index): at.isoformat() for s in ctx.seats if s.online}
        table.deadline = piao_deadline(ctx)
    ctx.event("piao.open", {"choices": table.piao_choices, "deadline": table.deadline.isoformat()})
    maybe_deal_after_piao(ctx)


def awaits_arrival(table: Table) -> bool:
    """An arranged table's first hand: its players were seated by a service (a match's next round)
    and are on their way, so the piao window counts from each one's arrival (``note_arrival``)."""
    return table.arranged and table.hands_played == 0


def note_arrival(ctx: Ctx, seat) -> None:
    """A seated player's socket came to the table (his seat goes online): during a piao window that
    waits for arrivals, his full PIAO_SECONDS count from now (his first arrival only, and only
    while he is still waited for)."""
    table = ctx.table
    info = table.deadline_info or {}
    if table.stage != Stage.PIAO or table.deadline_kind != "piao" or "arrive_by" not in info:
        return
    at = now()
    arrived = info.setdefault("arrived", {})
    if str(seat.index) in arrived or at >= datetime.fromisoformat(info["arrive_by"]):
        return
    arrived[str(seat.index)] = at.isoformat()
    table.deadline = piao_deadline(ctx)


def piao_deadline(ctx: Ctx) -> datetime:
    """When the piao window of a table waiting for arrivals closes: PIAO_SECONDS after the arrival
    of each player still to choose, and for one not come yet, the end of the wait (``arrive_by``)."""
    table = ctx.table
    info = table.deadline_info
    arrived = info.get("arrived") or {}
    ends = [datetime.fromisoformat(arrived[str(s.index)]) + timedelta(seconds=PIAO_SECONDS)
            if str(s.index) in arrived else datetime.fromisoformat(info["arrive_by"])
            for s in ctx.seats if s.piao is None]
    return max(ends) if ends else table.deadline


def maybe_deal_after_piao(ctx: Ctx) -> None:
    if all(s.piao is not None for s in ctx.seats):
        deal(ctx)
    elif ctx.table.stage == Stage.PIAO and "arrive_by" in (ctx.table.deadline_info or {}):
        ctx.table.deadline = piao_deadline(ctx)  # one who chose is no longer waited for


def new_seed() -> bytes:
    """32 bytes from the OS's CSPRNG (browser tests replace this function to replay a known deal)."""
    return secrets.token_bytes(32)


def deal(ctx: Ctx) -> None:
    """Commit to a fresh seed (its sha256 is published first), then deal."""
    table = ctx.table
    seed = new_seed()
    rules = RuleSet.from_json(table.ruleset)
    engine_hand = EngineHand(rules, dealer=table.dealer, seed=seed)
    piao = {str(s.index): s.piao for s in ctx.seats if s.piao is not None}
    hand = Hand.objects.create(
        table=table, number=table.hands_played + 1, dealer=table.dealer, seed_hash=seed_commitment(seed),
        ruleset=table.ruleset, state=engine_hand.to_json(), piao=piao,
        players={str(s.index): s.user_id for s in ctx.seats}, playing=list(engine_hand.active_seats),
    )
    ctx.hand, ctx.engine_hand, ctx.hand_dirty = hand, engine_hand, True
    table.stage = Stage.HAND
    for seat in ctx.seats:
        seat.ready = False
        ctx.touch(seat)
    ctx.event("hand.start", {"number": hand.number, "dealer": hand.dealer, "seed_hash": hand.seed_hash,
                             "piao": piao})
    ctx.outbox.add_engine(engine_hand.events, hand=hand)
    after_engine(ctx)


def after_engine(ctx: Ctx) -> None:
    """After the engine moved: finish the hand, or set the next deadline."""
    if ctx.engine_hand.finished:
        finish_hand(ctx)
    else:
        set_play_deadline(ctx)


def set_deadline(table: Table, kind: str, seconds: float, *, seats: list[int], mark: int = 0) -> None:
    table.deadline = now() + timedelta(seconds=seconds)
    table.deadline_kind = kind
    table.deadline_info = {"seats": seats, "mark": mark}


def clear_deadline(table: Table) -> None:
    table.deadline, table.deadline_kind, table.deadline_info = None, "", {}


def decision_mark(engine_hand) -> int:
    """Changes whenever a new card comes into question (a pass does not change it)."""
    return sum(1 for e in engine_hand.events if e.type in ("reveal", "draw", "show", "discard", "chi", "peng"))


def bot_delay_range() -> tuple[float, float]:
    """Seconds a bot or 托管 seat waits before it plays: settings.TABLES_BOT_DELAY, a number or a
    (min, max) pair (parsed from the environment in settings). 0 plays at once (in the request)."""
    value = settings.TABLES_BOT_DELAY
    if isinstance(value, int | float):
        return float(value), float(value)
    low, high = (list(value) + list(value))[:2]
    return float(low), float(max(low, high))


def bots_paced() -> bool:
    return bot_delay_range()[1] > 0


def set_play_deadline(ctx: Ctx) -> None:
    """The next deadline: a bot's move (after a short delay), a human's turn, or a claim window.

    A claim window lasts ``claim_seconds`` from the moment its card came into question (``mark``);
    its end, ``info["window"]``, survives passes on the same card and is the deadline everyone is
    shown (presenters.py), whoever holds an option: humans, bots or both. While bots must also
    decide, the table deadline is the bot's and the humans' one waits in ``info``.
    """
    table, hand = ctx.table, ctx.engine_hand
    to_act = hand.to_act()
    if not to_act:
        clear_deadline(table)
        return
    humans = [s for s in to_act if not ctx.seats[s].autoplay]
    bots = [s for s in to_act if ctx.seats[s].autoplay]
    mark = decision_mark(hand)
    info = table.deadline_info or {}
    window = None  # the claim window's end (None on a turn)
    if discard_seat(hand) is None:
        if info.get("mark") == mark and info.get("window"):
            window = datetime.fromisoformat(info["window"])
        else:
            window = now() + timedelta(seconds=table.claim_seconds)
    human = None  # (kind, datetime)
    if humans:
        human = ("turn", now() + timedelta(seconds=table.turn_seconds)) if window is None else ("claim", window)
    extra = {"window": window.isoformat()} if window is not None else {}
    if bots:
        if table.deadline_kind == "bot" and info.get("mark") == mark and table.deadline is not None:
            at = table.deadline  # the bot is already thinking about this card
        else:
            low, high = bot_delay_range()
            at = now() + timedelta(seconds=random.uniform(low, high))
        table.deadline, table.deadline_kind = at, "bot"
        table.deadline_info = {"seats": bots, "mark": mark,
                               "human": {"kind": human[0], "at": human[1].isoformat(), "seats": humans}
                               if human else None, **extra}
    else:
        table.deadline, table.deadline_kind = human[1], human[0]
        table.deadline_info = {"seats": humans, "mark": mark, **extra}


def finish_hand(ctx: Ctx) -> None:
    """Settle (engine ``settle``), reveal the seed, move the dealer, maybe end the session."""
    table, hand, engine_hand = ctx.table, ctx.hand, ctx.engine_hand
    piao = {int(k): v for k, v in (hand.piao or {}).items()}
    totals = settle(engine_hand, base=table.base_score, piao=piao)
    result = engine_hand.result or {}
    winner = result.get("winner")
    hand.status, hand.finished_at = HandStatus.FINISHED, now()
    hand.seed = bytes(engine_hand.seed).hex()
    hand.result, hand.totals = jsonable(result), jsonable(totals)
    # Saved here, not by ctx.save(): an auto-ready table deals the next hand in this same
    # transaction (maybe_start below), and ctx.hand is then that new hand.
    hand.state = engine_hand.to_json()
    auto_ready = table.hands_played + 1 < table.hands_per_session and policy(table)["auto_ready"]
    for seat in ctx.seats:
        seat.score += int(hand.totals.get("total", {}).get(str(seat.index), 0))
        seat.wins += 1 if winner == seat.index else 0
        seat.ready = seat.autoplay
        ctx.touch(seat)
    table.hands_played += 1
    # The engine's rule (RULES.md §2; an escape, §8.6: the dealer keeps the deal, the draws reset)
    table.dealer, table.consecutive_draws = engine_hand.next_dealer(table.consecutive_draws)
    clear_deadline(table)
    ctx.event(hand=hand, payload={"number": hand.number, "seed": hand.seed, "seed_hash": hand.seed_hash,
                           "winner": winner, "result": hand.result, "totals": hand.totals}, type_="hand.end")
    rows.save_live(hand, Hand.END_FIELDS)
    ctx.hand_dirty = False  # (written: ctx.save() would write it again)
    hand_finished.send(sender=Hand, hand=hand)
    if table.hands_played >= table.hands_per_session:
        end_session(ctx, reason="complete")
    else:
        table.stage = Stage.SETTLE
        if auto_ready:
            # The next hand starts by itself: after NEXT_HAND_SECONDS (``start_next_hand``), or as
            # soon as every player has tapped 下一局; a table of 托管 seats alone goes on at once.
            set_deadline(table, "next", NEXT_HAND_SECONDS, seats=[s.index for s in ctx.seats if not s.ready])
        maybe_start(ctx)


def start_next_hand(ctx: Ctx) -> None:
    """The wait after a hand of a table that starts its hands by itself is over: everyone is
    ready and the next hand starts (unless the arranger holds it: ``arranged_release`` then)."""
    clear_deadline(ctx.table)
    for seat in ctx.seats:
        if seat.taken and not seat.ready:
            seat.ready = True
            ctx.touch(seat)
            ctx.event("seat.ready", {"seat": seat.index, "timeout": True})
    maybe_start(ctx)


def end_session(ctx: Ctx, *, reason: str) -> None:
    table = ctx.table
    table.status = TableStatus.FINISHED if reason == "complete" else TableStatus.DISSOLVED
    table.stage, table.finished_at = Stage.OVER, now()
    clear_deadline(table)
    table.dissolve_by, table.dissolve_votes, table.dissolve_deadline = None, {}, None
    # Presence is kept for open tables only (services._set_online): the seats go offline with the
    # session, so none stays online after its players leave the result page.
    for seat in ctx.seats:
        if seat.online and not seat.bot:
            seat.online = False
            ctx.touch(seat)
    summary = [{"seat": s.index, "user": s.user_id, "bot": s.bot, "total": s.score, "wins": s.wins}
               for s in ctx.seats]
    # The distance classes live as long as the session, the seated players' positions no longer.
    nearby.forget(table_id=table.pk, seated=[s.user_id for s in ctx.seats if s.user_id])
    ctx.event("table.end", {"reason": reason, "hands_played": table.hands_played, "summary": summary})
    table_finished.send(sender=Table, table=table, reason=reason)


def policy(table: Table) -> dict[str, bool]:
    """What ``session_policy`` receivers want for this table (signals.py); tables knows not who."""
    out = {"auto_ready": False, "hold": False}
    for _receiver, answer in session_policy.send(sender=Table, table=table):
        if isinstance(answer, dict):
            for key in out:
                out[key] = out[key] or bool(answer.get(key))
    return out


def discard_seat(hand: EngineHand) -> int | None:
    """The seat that must discard now (public knowledge), if any; None while claims are open."""
    for seat in hand.to_act():
        if any(a.type == "discard" for a in hand.legal_actions(seat)):
            return seat
    return None
