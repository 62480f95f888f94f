"""The tables' one JSON encoder (jsontext.py) and the statement conversion cache of rows.py.

``to_json`` must give exactly the text the standard library gives with the wire's options, for
every viewer's view through a whole hand (the client and the tests parse either), and still encode
what orjson refuses. The rows cursor converts a statement's text once, however many parameters."""

from __future__ import annotations

import json
import random

import pytest

from apps.engine.bots.choose import bot_choose
from apps.engine.play.hand import Hand
from apps.engine.play.observer import build_view
from apps.engine.rules import PRESETS
from apps.tables.storage import rows
from apps.tables.storage.jsontext import to_json, to_json_bytes


def _stdlib(value) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@pytest.mark.parametrize("preset", sorted(PRESETS)[:3])
def test_to_json_is_the_standard_librarys_text_for_every_view_of_a_hand(preset):
    """RULES.md §4.1: the views are what each viewer may see; encoding must not change a byte."""
    hand = Hand(PRESETS[preset], dealer=0, seed=b"j" * 32)
    rng = random.Random(7)
    checked = 0
    while True:
        for viewer in [*range(hand.players), None]:
            view = build_view(hand, viewer)
            assert to_json(view) == _stdlib(view)
            assert to_json_bytes(view) == _stdlib(view).encode()
            checked += 1
        for ev in hand.events[-3:]:
            wire = ev.to_wire()
            assert to_json(wire) == _stdlib(wire)
        if hand.finished:
            break
        seat = hand.to_act()[0]
        hand.apply(seat, bot_choose(hand, seat, kind="random", rng=rng))
    assert hand.finished and checked >= 2 * (hand.players + 1)


def test_to_json_encodes_what_orjson_refuses_as_the_standard_library_does():
    for value in [{"name": "a\ud800b"}, {"n": 2**70}, {1: "一", None: [True, 1.5]}]:
        assert to_json(value) == _stdlib(value)
    assert to_json_bytes({"n": 2**70}) == b'{"n":1180591620717411303424}'


@pytest.mark.django_db
def test_a_statement_of_many_parameters_is_converted_once():
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("the server-side-binding cursor is PostgreSQL's")
    sql = "SELECT " + " + ".join(["%s::int"] * 60)  # psycopg itself caches up to 50 parameters
    with rows._cursor() as cursor:
        conversions = type(cursor).conversions
        before = conversions.cache_info()
        for i in range(3):
            rows._execute(cursor, sql, list(range(i, i + 60)))
            assert cursor.fetchone()[0] == sum(range(i, i + 60))
        after = conversions.cache_info()
    assert (after.misses - before.misses, after.hits - before.hits) == (1, 2)
