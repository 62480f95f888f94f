"""Issue 12, item 9: a viewer learns nothing of other seats' options, not who and not when they
passed, while he can still tell a lost update (RULES.md §6: who holds an option is hidden).

Updates are numbered per viewer (``Table.view_seqs``): a pass that leaves the claim window open
sends the other viewers nothing at all, and every viewer's numbering runs 1, 2, 3... with no gap.
"""

from __future__ import annotations

import json
import random

import pytest

from apps.engine.bots.choose import bot_choose
from apps.tables.models import Table
from apps.tables.transaction import outbox
from apps.tables.transaction.outbox import view_seq
from apps.tables.verbs import play
from tests.tables.helpers import current, ready_all


def _play(full_table, players, captured, rng, django_capture_on_commit_callbacks):
    """Play one hand with random bot choices; returns (seat, action, message) per move."""
    moves = []
    for _ in range(400):
        table, hand, eh = current(full_table.pk)
        if hand.status != "playing":
            break
        seat = eh.to_act()[0]
        action = bot_choose(eh, seat, kind="random", rng=rng)
        before = len(captured)
        events_before = len(eh.events)
        with django_capture_on_commit_callbacks(execute=True):
            play.hand_act(user=players[seat], table_id=table.pk, seq=view_seq(table, seat), action=action.to_wire())
        _, _, eh_after = current(full_table.pk)
        new_events = [e.to_wire()["type"] for e in eh_after.events[events_before:]]
        moves.append((seat, action.to_wire(), captured[before:], new_events))
    return moves


@pytest.mark.django_db
@pytest.mark.parametrize("seed", range(4))
def test_a_pass_that_leaves_the_window_open_sends_the_others_nothing(
        full_table, players, captured, seed, fixed_deals, django_capture_on_commit_callbacks):
    fixed_deals(f"quiet-pass-{seed}")  # each of these deals has a pass that leaves the window open
    with django_capture_on_commit_callbacks(execute=True):
        ready_all(full_table.pk, players)
    moves = _play(full_table, players, captured, random.Random(seed), django_capture_on_commit_callbacks)
    quiet_passes = 0
    for seat, action, messages, new_events in moves:
        # The engine logs a pass when the window closes; one that leaves it open makes no event.
        if action["type"] == "pass" and new_events in ([], ["pass"]):
            quiet_passes += 1
            for message in messages:
                assert set(message["views"]) == {str(seat)}, "another seat's pass reached other viewers"
                assert set(message["seqs"]) == {str(seat)}
    assert quiet_passes, "the deal has at least one pass with the claim window left open"


@pytest.mark.django_db
@pytest.mark.parametrize("seed", range(4))
def test_each_viewer_numbering_has_no_gaps_and_no_table_seq(
        full_table, players, captured, seed, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        ready_all(full_table.pk, players)
    _play(full_table, players, captured, random.Random(seed), django_capture_on_commit_callbacks)
    numbers: dict[str, list[int]] = {}
    for message in captured:
        for key, text in message["views"].items():
            copy = json.loads(text)
            assert copy["events"], f"{key} was sent a copy with nothing in it"
            assert copy["from_seq"] == copy["seq"] == message["seqs"][key]
            assert all("tseq" not in ev and "seq" not in ev for ev in copy["events"])
            numbers.setdefault(key, []).append(copy["seq"])
    table = Table.objects.get(pk=full_table.pk)
    assert set(numbers) == {"0", "1", "2", outbox.SPECTATOR}
    for key, seqs in numbers.items():
        assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), f"gap in {key}'s numbering"
        assert seqs[-1] == table.view_seqs[key]
    # The spectator sees no seat's pass, so he is sent fewer updates than the table has events.
    assert table.view_seqs[outbox.SPECTATOR] < table.seq


@pytest.mark.django_db
def test_an_action_on_a_view_others_passed_on_is_still_current(
        full_table, players, captured, fixed_deals, django_capture_on_commit_callbacks):
    """The stale check compares the seat's own number: a hidden pass does not make it stale."""
    fixed_deals("two-to-act-1")  # a deal with a claim window where two seats hold an option
    with django_capture_on_commit_callbacks(execute=True):
        ready_all(full_table.pk, players)
    rng = random.Random(7)
    for _ in range(400):
        table, hand, eh = current(full_table.pk)
        assert hand.status == "playing", "the deal ended before a window with two seats to act"
        to_act = eh.to_act()
        if len(to_act) >= 2:
            first, second = to_act[0], to_act[1]
            seen = view_seq(table, second)
            with django_capture_on_commit_callbacks(execute=True):
                play.hand_act(user=players[first], table_id=table.pk, seq=view_seq(table, first),
                              action={"type": "pass"})
            table, _, eh = current(full_table.pk)
            if second in eh.to_act():
                assert view_seq(table, second) == seen
                with django_capture_on_commit_callbacks(execute=True):
                    play.hand_act(user=players[second], table_id=table.pk, seq=seen,
                                  action=bot_choose(eh, second, kind="random", rng=rng).to_wire())
                return
            continue
        seat = to_act[0]
        with django_capture_on_commit_callbacks(execute=True):
            play.hand_act(user=players[seat], table_id=table.pk, seq=view_seq(table, seat),
                          action=bot_choose(eh, seat, kind="random", rng=rng).to_wire())
    raise AssertionError("no window with two seats to act in 400 moves")


@pytest.mark.django_db
def test_a_claim_window_looks_the_same_whoever_holds_the_option(full_table, players, django_capture_on_commit_callbacks):
    """RULES.md §6: the deadline a viewer is shown in a claim window is the window's own end, the
    same for every viewer and whether a bot or a person decides (no ``bot_deadline``)."""
    from django.utils import timezone

    from apps.tables.models import Seat
    from apps.tables.read.presenters import table_state

    with django_capture_on_commit_callbacks(execute=True):
        ready_all(full_table.pk, players)
    table, hand, eh = current(full_table.pk)
    seats = list(Seat.objects.filter(table=table).order_by("index"))
    window = timezone.now() + timezone.timedelta(seconds=table.claim_seconds)
    seen = []
    for kind, info in (("claim", {"seats": [0], "mark": 5}),
                       ("bot", {"seats": [1], "mark": 5, "human": None}),
                       ("bot", {"seats": [1], "mark": 5, "human": {"kind": "claim", "at": window.isoformat(),
                                                                    "seats": [0]}})):
        table.deadline = window if kind == "claim" else timezone.now() + timezone.timedelta(seconds=1)
        table.deadline_kind, table.deadline_info = kind, {**info, "window": window.isoformat()}
        state = table_state(table, seats, hand, eh, 2)
        assert "bot_deadline" not in state
        seen.append((state["deadline"], state["deadline_kind"], state["deadline_seconds"]))
    assert len(set(seen)) == 1 and seen[0][1] == "claim" and seen[0][2] == table.claim_seconds
