"""Claims and 臭 (RULES.md §5.3, §7, §11.4, §11.6, §11.10, §2)."""

from __future__ import annotations

import json

import pytest
from hand_support import act, cards, force_wins, hand_from, pass_all, types_of

from apps.engine.actions import Action, IllegalAction
from apps.engine.groups import Group
from apps.engine.play.hand import Hand
from apps.engine.rules import resolve_ruleset

S3 = cards("s3")[0]


def test_s7_a_discarded_card_is_chou_for_the_discarder():
    h = hand_from("full", ["s3"], "s10")
    act(h, 0, {"type": "discard", "card": "s3"})
    assert S3 in h.chou(0)


def test_s7_chou_card_may_not_be_eaten_or_penged_again():
    h = hand_from("full", ["s3 s3", "s4 s5 s3 s3"], "s10")
    act(h, 0, {"type": "discard", "card": "s3"})
    act(h, 1, {"type": "pass"})
    assert S3 in h.chou(1)


def test_s7_chou_on_unable_chi_option():
    # s3 s4 s5 in hand: eating s3 with s4 s5 leaves an s3 that cannot be 比'd.
    on = hand_from("full", ["s3", "s3 s4 s5"], "s10", chou_on_unable_chi=True)
    events = act(on, 0, {"type": "discard", "card": "s3"})
    assert "pass" not in types_of(events)[:2]  # nobody had an option: the card went unclaimed
    assert on.discards[0][0] == S3 and S3 in on.chou(1)
    off = hand_from("full", ["s3", "s3 s4 s5"], "s10")
    act(off, 0, {"type": "discard", "card": "s3"})
    pass_all(off)
    assert S3 not in off.chou(1)


def test_s7_chou_hu_declined_hu_binds_while_laid_huxi_is_unchanged(monkeypatch):
    force_wins(monkeypatch, {2: {"other_draw"}})
    h = hand_from("full", ["s9", "", "s3"], "s10", "s3 s3", chou_hu=True)
    act(h, 0, {"type": "discard", "card": "s9"})
    pass_all(h)
    assert "hu" in h.pending[2]
    act(h, 2, {"type": "pass"})
    pass_all(h)
    assert h.chou(2) is not None and 2 not in h.pending or "hu" not in h.pending.get(2, [])


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


def test_s8_4_nobody_else_wins_on_a_wei_card(monkeypatch):
    force_wins(monkeypatch, {0: {"other_draw"}, 2: {"other_draw"}})
    h = hand_from("full", ["s9", "s6 s6"], "s10", "s6")
    act(h, 0, {"type": "discard", "card": "s9"})
    pass_all(h)
    assert types_of(h.events)[-1] == "wei" and h.pending == {}


def test_s11_9_illegal_action_leaves_the_hand_unchanged():
    h = hand_from("full", ["s3"], "s10")
    before = json.dumps(h.to_json(), sort_keys=True)
    with pytest.raises(IllegalAction):
        h.apply(1, Action("pass"))
    with pytest.raises(IllegalAction):
        h.apply(0, Action("peng"))
    assert json.dumps(h.to_json(), sort_keys=True) == before


def test_s2_dealer_rotation():
    full = resolve_ruleset("full")
    h = hand_from("full", ["s3"], "s10")
    h.finished, h.result = True, {"winner": None, "draw": True}
    assert h.next_dealer(0) == (0, 1)
    assert h.next_dealer(2) == (1, 0)  # stay3: the third draw in a row passes the deal
    h.result = {"winner": 2}
    assert h.next_dealer(2) == (2, 0)
    chen = Hand(resolve_ruleset("chenzhou"), 0, seed=bytes(32))
    chen.finished, chen.result = True, {"winner": None, "draw": True}
    assert chen.next_dealer(0)[0] == 1
    assert full.dealer_after_draw == "stay3"


def test_s11_5_one_winner_first_by_priority(monkeypatch):
    force_wins(monkeypatch, {1: {"self_draw"}, 2: {"other_draw"}})
    h = hand_from("full", ["s9"], "s10")
    act(h, 0, {"type": "discard", "card": "s9"})
    pass_all(h)
    events = act(h, 1, {"type": "hu"})  # the drawer comes first: no need to wait for seat 2
    assert types_of(events)[-1] == "hu" and h.result["winner"] == 1
    assert sum(1 for e in h.events if e.type == "hu") == 1
