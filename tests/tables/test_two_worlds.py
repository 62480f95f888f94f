"""Nothing a player is told depends on cards he may not see (issue #41; RULES.md §5.3, §8.6).

Seeded bot play reaches thousands of states in play, in every preset and player count, 逃跑 on and
off; for each viewer a second world is made from the first by swapping other seats' concealed
cards with stock cards (tests/engine/two_worlds.py). The platform must send that viewer
byte-identical JSON in both worlds: his ``state`` (``presenters.table_state`` and the copies of
``presenters.encoded_states``) and his ``update`` (``outbox.Outbox``'s message) — the escape bound
included (§8.6 "What the leaver is told before he confirms": computed from what he sees).
"""

from __future__ import annotations

import copy
import json
import random

import pytest

from apps.engine.play.observer import build_view
from apps.tables.models import Hand, HandStatus, Seat, Stage, Table, TableStatus
from apps.tables.read.presenters import encoded_states, legal_of, table_state, turn_of
from apps.tables.storage.jsontext import to_json
from apps.tables.transaction.outbox import SPECTATOR, Outbox, viewer_key
from apps.tables.transaction.session import discard_seat
from tests.engine.two_worlds import CONFIGS, other_world, resting_states, ruleset

BASE = 3  # a base score above 1: the bound is the view's times the table's base


def _rows(club, users, preset: str, players: int, escape: bool) -> tuple[Table, list[Seat], Hand]:
    """A table playing its first hand, as the database holds it (seat 0 a person, the rest bots)."""
    rs = ruleset(preset, players, escape)
    table = Table.objects.create(
        club=club, name=f"{preset}{players}", preset=preset, players=players, base_score=BASE,
        options={"escape_penalty": escape}, ruleset=rs.to_json(), status=TableStatus.PLAYING, stage=Stage.HAND,
        created_by=users[0], hands_per_session=4,
    )
    seats = [Seat.objects.create(table=table, index=i, user=users[i] if i < len(users) else None,
                                 bot="" if i < len(users) else "greedy", ready=True) for i in range(players)]
    hand = Hand.objects.create(table=table, number=1, dealer=0, seed_hash="0" * 64, ruleset=rs.to_json(),
                               status=HandStatus.PLAYING, playing=list(rs.active_seats(0)),
                               players={str(s.index): s.user_id for s in seats if s.user_id})
    table = Table.objects.get(pk=table.pk)
    return table, list(table.seats.select_related("user").order_by("index")), Hand.objects.get(pk=hand.pk)


def _update(table: Table, seats: list[Seat], hand: Hand, eh, events: list, viewer: int | None) -> str | None:
    """The ``update`` the outbox would send ``viewer`` for ``events`` with the hand now ``eh``."""
    box = Outbox(copy.copy(table))
    box.table.view_seqs = dict(table.view_seqs or {})
    box.add_engine(events, hand=hand)
    return box._message(seats, hand, eh)["views"].get(viewer_key(viewer))


@pytest.mark.django_db
@pytest.mark.parametrize(("preset", "count", "escape"), CONFIGS)
def test_two_worlds_give_each_viewer_byte_identical_state_and_update(club, players, preset, count, escape):
    table, seats, hand = _rows(club, players[:1], preset, count, escape)
    rng = random.Random(f"{preset}:{count}:{escape}")
    viewers = [*range(count), None]
    states = compared = differing = bounds = 0
    for eh, events in resting_states(ruleset(preset, count, escape), f"tables:{preset}:{count}", hands=10):
        states += 1
        texts = encoded_states(table, seats, hand, eh, viewers)
        for viewer in viewers:
            state = json.loads(texts[viewer])
            part = state["hand"]
            # the public turn, from the view, is the seat that must discard - for every viewer
            assert turn_of(part) == discard_seat(eh)
            assert "turn" not in part and "legal" not in part  # each fact once: the view's
            assert legal_of(part) == (part["view"]["legal_actions"] if viewer is not None else [])
            if "escape" in part:
                bounds += 1
                assert part["escape"] == {"at_least": part["view"]["escape"]["at_least"] * BASE}
                assert {"type": "escape"} in legal_of(part) and viewer is not None
            else:
                assert {"type": "escape"} not in legal_of(part)
            other = other_world(eh, viewer, rng)
            if other is None:
                continue
            compared += 1
            differing += build_view(other, "audit") != build_view(eh, "audit")
            assert encoded_states(table, seats, hand, other, [viewer])[viewer] == texts[viewer], (viewer, state)
            assert to_json(table_state(table, seats, hand, other, viewer)) == to_json(
                table_state(table, seats, hand, eh, viewer))
            if viewer == 0 or viewer is None or rng.random() < 0.3:  # (the update's copies cost the most)
                mine = _update(table, seats, hand, eh, events, viewer)
                assert _update(table, seats, hand, other, events, viewer) == mine
    assert states >= 50 and compared >= states * len(viewers) // 2 and differing >= compared // 2
    assert (bounds > 0) == escape
    assert SPECTATOR == viewer_key(None)
