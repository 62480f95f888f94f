"""RULES.md §11: Decisions where the seeds are silent, garbled or disagree."""

from __future__ import annotations

import json

import pytest

from apps.engine.actions import Action, IllegalAction
from apps.engine.cards import card_name, counts_of, full_deck
from apps.engine.chi import chi_options
from apps.engine.groups import Group
from apps.engine.play.hand import Hand
from apps.engine.rules import PRESETS, resolve_ruleset
from apps.engine.scoring.huxi import group_huxi
from apps.engine.shuffle import deck_from_seed, deck_from_seed_reference
from tests.engine.hand_support import act, cards, force_wins, hand_from, pass_all, types_of
from tests.engine.rules.support import S3, group_of, mt
from tests.engine.scoring_helpers import names, score


def test_s11_4_chi_leaving_nothing_to_discard_is_illegal():
    found, could_form = chi_options(tuple(counts_of(cards("s4 s5 b1 b1 b1"))), cards("s3")[0])
    assert found == () and could_form


def test_s11_4_peng_leaving_nothing_to_discard_is_illegal():
    h = hand_from("full", ["s3"], "s10")
    # Seat 2 holds a pair of s3 and otherwise only 坎 (the rest laid as earlier groups).
    vec = h.hands[2]
    keep = {S3: 2}
    for c in range(20):
        while vec[c] > keep.get(c, 0) and vec[c] != 3:
            vec[c] -= 1
            h.discards[2].append(c)  # set-up only: park the cards out of his hand
    assert all(n in (0, 3) for c, n in enumerate(vec) if c != S3)
    act(h, 0, {"type": "discard", "card": "s3"})
    assert "peng" not in h.pending.get(2, [])


def test_s11_4_forced_action_leaving_nothing_to_discard_makes_a_dead_hand():
    h = hand_from("full", ["s9", "s6 s6"], "s10", "s6")
    vec = h.hands[1]
    parked = []
    for c in range(20):  # set-up: seat 1 holds only the pair of s6 and 坎, the rest laid earlier
        while vec[c] > (2 if c == cards("s6")[0] else 0) and vec[c] != 3:
            vec[c] -= 1
            parked.append(c)
    h.groups[1].append(Group("chi", tuple(parked)))
    act(h, 0, {"type": "discard", "card": "s9"})
    pass_all(h)
    assert [g.kind for g in h.groups[1]] == ["chi", "wei"]
    assert h.dead[1] and not (h.phase == "discard" and h.turn == 1)


def test_s11_6_default_actions():
    h = hand_from("full", ["s3 b9"], "s10")
    legal = h.legal_actions(0)
    assert h.default_action(0) == Action.discard(max(a.card for a in legal))
    act(h, 0, {"type": "discard", "card": "s3"})
    for seat in h.to_act():
        assert h.default_action(seat) == Action("pass")


def test_s11_6_an_offered_hu_is_taken_by_default(monkeypatch):
    force_wins(monkeypatch, {1: {"self_draw"}})
    h = hand_from("full", ["s9"], "s10")
    act(h, 0, {"type": "discard", "card": "s9"})
    pass_all(h)
    assert h.default_action(1) == Action("hu")


def test_s11_10_wei_hu_passes_the_hand_before_the_wei(monkeypatch):
    calls = force_wins(monkeypatch, {1: {"self_draw"}})
    h = hand_from("full", ["s9", "s6 s6"], "s10", "s6")
    before = list(h.hands[1])
    act(h, 0, {"type": "discard", "card": "s9"})
    pass_all(h)
    assert types_of(h.events)[-1] == "wei" and h.pending == {1: ["hu", "pass"]}
    assert h.table_card is None  # the 偎'd card is laid, not on the table
    act(h, 1, {"type": "hu"})
    assert calls[-1]["win_by"] == "self_draw" and calls[-1]["card"] == cards("s6")[0]
    assert sorted(calls[-1]["hand"]) == sorted(c for c in range(20) for _ in range(before[c]))
    assert h.result["win_by"] == "self_draw"


def test_s11_9_illegal_action_leaves_the_hand_unchanged():
    h = hand_from("full", ["s3"], "s10")
    before = json.dumps(h.to_json(), sort_keys=True)
    with pytest.raises(IllegalAction):
        h.apply(1, Action("pass"))
    with pytest.raises(IllegalAction):
        h.apply(0, Action("peng"))
    assert json.dumps(h.to_json(), sort_keys=True) == before


def test_s11_5_one_winner_first_by_priority(monkeypatch):
    force_wins(monkeypatch, {1: {"self_draw"}, 2: {"other_draw"}})
    h = hand_from("full", ["s9"], "s10")
    act(h, 0, {"type": "discard", "card": "s9"})
    pass_all(h)
    events = act(h, 1, {"type": "hu"})  # the drawer comes first: no need to wait for seat 2
    assert types_of(events)[-1] == "hu" and h.result["winner"] == 1
    assert sum(1 for e in h.events if e.type == "hu") == 1


def test_s11_7_blocks_of_20_from_the_dealer_then_reveal_then_stock():
    deck = deck_from_seed(bytes(32))
    h = Hand(resolve_ruleset("full"), dealer=1, seed=bytes(32))
    assert h.deck == deck
    deal = h.events[0].to_wire()
    assert deal["type"] == "deal"
    # Dealer 1 gets the first block, then seat 2, then seat 0.
    assert sorted(cards(" ".join(deal["hands"][1]))) == sorted(deck[0:20])
    assert sorted(cards(" ".join(deal["hands"][2]))) == sorted(deck[20:40])
    assert sorted(cards(" ".join(deal["hands"][0]))) == sorted(deck[40:60])
    assert h.events[1].to_wire() == {"seq": 2, "type": "reveal", "card": __import__("apps.engine.cards").engine.cards.card_name(deck[60])}
    assert h.reveal == deck[60]
    assert h.stock == deck[61:]


def test_s11_7_shuffle_test_vector():
    deck = deck_from_seed(bytes(32))
    assert [card_name(c) for c in deck[:12]] == "b3 b9 b1 b1 b3 s8 b9 s7 b8 b9 b3 b10".split()
    assert sorted(deck) == full_deck()


def test_s11_7_shuffle_is_a_function_of_the_seed():
    a = deck_from_seed(bytes(range(32)))
    assert a == deck_from_seed(bytes(range(32)))
    assert a != deck_from_seed(bytes(32))
    with pytest.raises(ValueError):
        deck_from_seed(b"short")


def test_s11_7_fast_shuffle_equals_the_reference_algorithm():
    import hashlib

    for i in range(3000):
        seed = hashlib.sha256(str(i).encode()).digest()
        assert deck_from_seed(seed) == deck_from_seed_reference(seed)


def test_s11_4_a_dead_hand_is_offered_no_chi_peng_or_hu(monkeypatch):
    force_wins(monkeypatch, {1: {"other_draw", "self_draw"}})
    h = hand_from("full", ["s3", "s3 s3 s4 s5"], "s9")
    h.dead[1] = True
    act(h, 0, {"type": "discard", "card": "s3"})
    assert 1 not in h.pending


def test_s11_6_time_out_discard_is_the_right_most_card():
    h = hand_from("full", ["s1 b9"], "s10")
    legal = [a.card for a in h.legal_actions(0)]
    assert h.default_action(0).card == max(legal)


def test_s11_6_an_offered_hu_is_the_default_even_with_other_options(monkeypatch):
    force_wins(monkeypatch, {1: {"self_draw"}})
    h = hand_from("full", ["s9", "s4 s5"], "s10", "s3")
    act(h, 0, {"type": "discard", "card": "s9"})
    pass_all(h)
    assert h.pending[1] == ["chi", "hu", "pass"]
    assert h.default_action(1).type == "hu"


def test_s11_15_natural_win_leftover_cards_are_not_a_group_for_shuang_piao():
    # Six 坎 (one of b10, all red) and two red cards left over (s2 s7: no group). Only one group is
    # all red, so no 双飘.
    hand = "s1 s1 s1 s3 s3 s3 s4 s4 s4 s5 s5 s5 s6 s6 s6 b10 b10 b10 s2 s7"
    r = score("changsha", hand, win=None, win_by="natural")
    assert r.win
    assert "shuang_piao" not in names(r)


def test_s11_12_changsha_yi_er_san_scores_zero() -> None:
    rs = PRESETS["changsha"]
    assert group_huxi(rs, group_of("sentence", "s1 s2 s3")) == 0
    assert group_huxi(rs, group_of("sentence", "b1 b2 b3")) == 0
    assert group_huxi(rs, group_of("sentence", "b2 b7 b10")) == 6


def test_s11_14_zi_mo_is_not_a_mingtang_for_hai_di() -> None:
    entries, fan, _ = mt("quanmin", red=5, last_card=True, zimo=True, options={"zimo": "fan"})
    assert entries == {"hai_di": 6, "zi_mo": 2} and fan == 8


def test_s11_11_full_reveal_win_doubles_huxi() -> None:
    hand = "s1 s2 s3 b5 b5 b5 b1 b2 b3 s9 s9 s9 b8 b8 b8 s4 s5 s6 s7 s7"
    dealer = score("full", hand, (), "s9", "reveal", dealer=True)  # dealer: the reveal card is dealt: 坎→提
    assert dealer.win and dealer.huxi == 30 and ("tian_hu", "huxi_x", 2) in dealer.bonuses
    assert dealer.tun == (60 - 15) // 3 + 1 + 1  # and 自摸 (§11.11)
    other = score("full", "s1 s2 s3 b5 b5 b5 b1 b2 b3 s9 s9 s9 s9 b8 b8 b8 s5 s6 s7 s7", (), "s4", "reveal")
    assert other.win and other.huxi == 30 and other.tun == (60 - 15) // 3 + 1  # not 自摸
