"""RULES.md §4.1: Kinds of group."""

from __future__ import annotations

import hashlib
import random

import pytest

from apps.engine.play.events import AUDIT
from apps.engine.play.hand import Hand
from apps.engine.play.observer import build_view, build_views
from apps.engine.rules import PRESET_PLAYERS, PRESETS, resolve_ruleset
from apps.engine.scoring.huxi import group_huxi
from tests.engine.hand_support import act, hand_from, pass_all
from tests.engine.rules.support import group_of


@pytest.mark.parametrize(
    "kind,small,big",
    [("ti", 9, 12), ("pao", 6, 9), ("wei", 3, 6), ("chou_wei", 3, 6), ("kan", 3, 6), ("peng", 1, 3)],
)
def test_s4_1_huxi_same_card_groups(kind: str, small: int, big: int) -> None:
    n = 4 if kind in ("ti", "pao") else 3
    rs = PRESETS["full"]
    assert group_huxi(rs, group_of(kind, " ".join(["s5"] * n))) == small
    assert group_huxi(rs, group_of(kind, " ".join(["b5"] * n))) == big


def test_s4_1_huxi_sentences_jiao_jiang() -> None:
    rs = PRESETS["full"]
    assert group_huxi(rs, group_of("sentence", "s1 s2 s3")) == 3
    assert group_huxi(rs, group_of("chi", "b1 b2 b3")) == 6
    assert group_huxi(rs, group_of("sentence", "s2 s7 s10")) == 3
    assert group_huxi(rs, group_of("chi", "b2 b7 b10")) == 6
    assert group_huxi(rs, group_of("sentence", "s4 s5 s6")) == 0
    assert group_huxi(rs, group_of("jiao", "s9 s9 b9")) == 0
    assert group_huxi(rs, group_of("chi", "s9 b9 b9")) == 0
    assert group_huxi(rs, group_of("jiang", "b10 b10")) == 0


def test_s4_1_packed_laid_groups_carry_every_huxi_table() -> None:
    """The scorer's packed laid groups (``scoring_tables.LAID``) hold, for each 胡息 table, the 胡息 that
    ``group_huxi`` gives the group (§4.1 and luzhou's table of §10)."""
    from apps.engine.scoring.huxi import group_huxi_by_key
    from apps.engine.scoring.tables import LAID, LAID_HUXI, TABLE_KEYS

    assert len(LAID) == 20 * 5 + 2 * 9 + 2 * 10
    for (kind, laid_cards), packed in LAID.items():
        for lane, key in enumerate(TABLE_KEYS):
            assert (packed >> (LAID_HUXI + 8 * lane)) & 0xFF == group_huxi_by_key(key, kind, laid_cards), (kind, laid_cards, key)


def test_s4_1_wei_hidden_for_others_unless_wei_shown_one():
    h = hand_from("full", ["s9", "s6 s6"], "s10", "s6")
    act(h, 0, {"type": "discard", "card": "s9"})
    pass_all(h)
    wei = next(e for e in h.events if e.type == "wei")
    assert wei.for_viewer(1)["card"] == "s6" and wei.for_viewer(2)["card"] is None
    assert build_view(h, 2)["groups"][1] == [{"kind": "wei", "cards": [None, None, None]}]
    assert build_view(h, 1)["groups"][1] == [{"kind": "wei", "cards": ["s6", "s6", "s6"]}]
    cs = hand_from("changsha", ["s9", "s6 s6"], "s10", "s6")
    act(cs, 0, {"type": "discard", "card": "s9"})
    pass_all(cs)
    wei = next(e for e in cs.events if e.type == "wei")
    assert wei.for_viewer(2)["card"] == "s6"
    assert build_view(cs, 2)["groups"][1] == [{"kind": "wei", "cards": ["s6", None, None]}]


def test_s4_1_ti_shows_one_card():
    h = hand_from("full", ["s9", "s1 s1 s1 s1"], "s10")
    assert build_view(h, 2)["groups"][1] == [{"kind": "ti", "cards": ["s1", None, None, None]}]


def test_s4_1_views_built_together_are_each_viewers_own_view():
    """``hand.views`` (an update's copies, built at once) gives every viewer exactly ``hand.view``:
    sharing what all see alike never hands one viewer another's hidden cards."""
    h = hand_from("full", ["s9", "s6 s6"], "s10", "s6")
    act(h, 0, {"type": "discard", "card": "s9"})
    pass_all(h)
    owner, other, spectator = build_views(h, [1, 2, None])
    assert owner["groups"][1] == [{"kind": "wei", "cards": ["s6", "s6", "s6"]}]
    assert other["groups"][1] == spectator["groups"][1] == [{"kind": "wei", "cards": [None, None, None]}]
    assert owner["huxi"][1] > 0 and other["huxi"][1] == 0
    for preset in sorted(PRESETS):
        for players in PRESET_PLAYERS.get(preset, (3,)):
            rs = resolve_ruleset(preset, players=players)
            hand = Hand(rs, dealer=0, seed=hashlib.sha256(f"{preset}{players}".encode()).digest())
            rng = random.Random(players)
            viewers = [*range(players), None, AUDIT]
            while True:
                order = viewers[::-1] if len(hand.events) % 2 else viewers
                together = build_views(hand, order)
                assert together == [build_view(hand, v) for v in order], (preset, players, len(hand.events))
                if hand.finished:
                    break
                seat = hand.to_act()[0]
                legal = hand.legal_actions(seat)
                hand.apply(seat, rng.choice(legal))
