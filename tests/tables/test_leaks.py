"""No socket ever receives a card its viewer may not see (the worst bug this app can have).

Many seeded hands are played through the services with a spectator and three seats listening on
the channel layer; every message a consumer would forward is checked against the audit truth:
other seats' hand cards, hidden 偎 cards, the stock, a drawn card before it is shown, the seed
before the end.
"""

from __future__ import annotations

import json
import random

import pytest

from apps.engine.bots.choose import bot_choose
from apps.engine.play.observer import build_view
from apps.tables.models import Hand, TableEvent
from apps.tables.storage.jsontext import jsonable
from apps.tables.transaction import outbox
from apps.tables.transaction.outbox import view_seq
from apps.tables.verbs import play
from tests.tables.helpers import current, ready_all

CARD_NAMES = [f"s{i}" for i in range(1, 11)] + [f"b{i}" for i in range(1, 11)]


def cards_in(obj) -> list[str]:
    """Every card name anywhere in a JSON value."""
    if isinstance(obj, str):
        return [obj] if obj in CARD_NAMES else []
    if isinstance(obj, dict):
        return [c for v in obj.values() for c in cards_in(v)]
    if isinstance(obj, list):
        return [c for v in obj for c in cards_in(v)]
    return []






@pytest.mark.django_db
@pytest.mark.parametrize("seed", range(6))
def test_no_message_leaks_hidden_cards(full_table, players, captured, seed, django_capture_on_commit_callbacks):
    rng = random.Random(seed)
    with django_capture_on_commit_callbacks(execute=True):  # the outbox sends after commit
        ready_all(full_table.pk, players)
    for _ in range(400):
        table, hand, eh = current(full_table.pk)
        if hand.status != "playing":
            break
        before = len(captured)
        seat = eh.to_act()[0]
        action = bot_choose(eh, seat, kind="random", rng=rng)
        with django_capture_on_commit_callbacks(execute=True):
            play.hand_act(user=players[seat], table_id=table.pk, seq=view_seq(table, seat), action=action.to_wire())
        _, hand_after, eh_after = current(full_table.pk)
        assert len(captured) > before, "every move notifies the table"
        for message in captured[before:]:
            check_message(message, hand_after, eh_after)
    assert Hand.objects.filter(table=full_table, status="finished").exists()


def check_message(message: dict, hand: Hand, eh) -> None:
    seed_hex = bytes(eh.seed).hex()
    finished = hand.status != "playing"
    for key, text in message["views"].items():
        viewer = None if key == outbox.SPECTATOR else int(key)
        assert isinstance(text, str)  # encoded once by the outbox; the channel layer carries text
        copy = json.loads(text)
        if not finished:
            assert seed_hex not in text, f"seed leaked to {key}"
            assert "stock_cards" not in text
        state_view = copy["state"]["hand"]["view"] if copy["state"]["hand"] else None
        if state_view and not finished:
            for seat, cards in state_view["hands"].items():
                if viewer is None or int(seat) != viewer:
                    assert cards is None, f"hand of seat {seat} leaked to {key}"
            audit = jsonable(build_view(eh, "audit"))  # string seat keys, as on the wire
            for seat, groups in state_view["groups"].items():
                for shown, real in zip(groups, audit["groups"][seat], strict=True):
                    if real["kind"] == "wei" and eh.rs.wei_shown == "none" and (viewer is None or int(seat) != viewer):
                        assert shown["cards"] == [None, None, None], f"wei of {seat} leaked to {key}"
            if viewer is not None:
                assert "chou" not in state_view or isinstance(state_view["chou"], list)
            else:
                assert state_view.get("chou") is None and not state_view["legal_actions"]
        for ev in copy["events"]:
            if ev["type"] != "engine":
                continue
            e = ev["event"]
            assert e is not None, f"an event hidden from {key} was announced (as null)"
            if e["type"] == "deal":
                for seat, cards in e["hands"].items():
                    if viewer is None or int(seat) != viewer:
                        assert all(c is None for c in cards), f"deal of {seat} leaked to {key}"
            if e["type"] == "draw" and e.get("seat") != viewer:
                assert e.get("card") is None, f"draw leaked to {key}"
            if e["type"] == "wei" and not e.get("chou") and eh.rs.wei_shown == "none" and e.get("seat") != viewer:
                assert e.get("card") is None, f"wei card leaked to {key}"
            if e["type"] == "pass":
                assert e.get("seat") == viewer, "another seat's pass was forwarded"


@pytest.mark.django_db
def test_events_log_keeps_full_audit_payloads(full_table, players):
    ready_all(full_table.pk, players)
    deal = TableEvent.objects.filter(table=full_table, type="engine").first()
    assert deal.payload["type"] == "deal" and all(all(deal.payload["hands"][s]) for s in deal.payload["hands"])
