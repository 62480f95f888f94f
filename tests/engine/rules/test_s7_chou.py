"""RULES.md §7: 臭 (chou): passed and discarded cards."""

from __future__ import annotations

from apps.engine.groups import Group
from tests.engine.hand_support import act, force_wins, hand_from, pass_all, types_of
from tests.engine.rules.support import S3, S6, last


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


def test_s7_chou_wei_after_passing_a_peng():
    h = hand_from("full", ["s6", "s6 s6"], "s10", "s6")
    act(h, 0, {"type": "discard", "card": "s6"})
    assert "peng" in h.pending[1]
    pass_all(h)
    assert S6 in h.chou(1)
    assert last(h, "wei") == {"seq": last(h, "wei")["seq"], "type": "wei", "seat": 1, "card": "s6", "chou": True}
    assert [g.kind for g in h.groups[1]] == ["chou_wei"]


def test_s7_drawer_eats_his_own_card_not_chou_for_his_next():
    h = hand_from("full", ["s9", "s4 s5", "s1 s2"], "s10", "s3")
    act(h, 0, {"type": "discard", "card": "s9"})
    pass_all(h)
    act(h, 2, {"type": "pass"})
    events = act(h, 1, {"type": "chi", "groups": [["s3", "s4", "s5"]]})
    assert "chi" in types_of(events)
    assert S3 not in h.chou(2) and S3 not in h.chou(1)


def test_s7_passed_peng_is_chou_when_a_lower_chi_takes_the_card():
    h = hand_from("full", ["s3", "s4 s5", "s3 s3"], "s9")
    act(h, 0, {"type": "discard", "card": "s3"})
    act(h, 2, {"type": "pass"})
    act(h, 1, {"type": "chi", "groups": [["s3", "s4", "s5"]]})
    assert S3 in h.chou(2)


def test_s7_passed_chi_on_an_unclaimed_discard_is_chou_then_not_offered_again():
    h = hand_from("full", ["s3 s9", "s4 s5"], "s10", "b9 b8")
    act(h, 0, {"type": "discard", "card": "s3"})
    pass_all(h)
    assert S3 in h.chou(1)


def test_s7_chou_does_not_stop_hu(monkeypatch):
    force_wins(monkeypatch, {1: {"self_draw"}})
    h = hand_from("full", ["s3 s9", "s4 s5"], "s10", "s3")
    act(h, 0, {"type": "discard", "card": "s3"})
    # No 胡 on a discard in full: seat 1 is offered only the 吃, and passes it.
    assert h.pending[1] == ["chi", "pass"]
    act(h, 1, {"type": "pass"})
    assert S3 in h.chou(1)
    assert h.pending.get(1) == ["hu", "pass"]  # he drew s3: 胡过张 is allowed
    assert "chi" not in h.pending[1]


def test_s7_not_chou_when_a_peng_outranks_the_passed_chi():
    h = hand_from("full", ["s3", "s4 s5", "s3 s3"], "s9")
    act(h, 0, {"type": "discard", "card": "s3"})
    act(h, 1, {"type": "pass"})
    act(h, 2, {"type": "peng"})
    assert S3 not in h.chou(1)


def test_s7_chou_on_unable_chi_when_the_card_goes_unclaimed():
    # seed 004 ②: holding s2 s3 s4 s5, a shown s3 cannot be eaten (比 impossible): 臭.
    h = hand_from("full", ["s9", "s2 s3 s4 s5"], "s10", "s3", chou_on_unable_chi=True)
    act(h, 0, {"type": "discard", "card": "s9"})
    pass_all(h)
    assert last(h, "show")["card"] == "s3" and "chi" not in h.pending.get(1, [])
    pass_all(h)
    assert S3 in h.chou(1)


def test_s7_chou_on_unable_chi_drawer_when_his_next_eats_the_card():
    # The drawer (seat 1) could not eat his own s3 because 比 was impossible; his next eats it.
    # The drawer's 吃 would have outranked that 吃, so the card is 臭 for him (§7, seed 004 ②).
    h = hand_from("full", ["s9", "s2 s3 s4 s5", "s4 s5"], "s10", "s3", chou_on_unable_chi=True)
    act(h, 0, {"type": "discard", "card": "s9"})
    pass_all(h)
    assert last(h, "show") == {"seq": last(h, "show")["seq"], "type": "show", "seat": 1, "card": "s3"}
    assert h.pending == {2: ["chi", "pass"]}
    act(h, 2, {"type": "chi", "groups": [["s3", "s4", "s5"]]})
    assert S3 in h.chou(1)


def test_s7_chou_hu_is_released_when_laid_huxi_changes(monkeypatch):
    force_wins(monkeypatch, {2: {"other_draw", "self_draw"}})
    h = hand_from("full", ["s9 s3", "", "s3"], "s10", "s3 s3", chou_hu=True)
    act(h, 0, {"type": "discard", "card": "s9"})
    pass_all(h)
    assert "hu" in h.pending[2]
    pass_all(h)  # seat 2 declines the 胡 on seat 1's s3 (everyone passes)
    # He draws the next s3 himself: the declined 胡 still binds (laid 胡息 unchanged), so the
    # card goes by without him being asked.
    wire = [e.to_wire() for e in h.events]
    at = next(i for i, w in enumerate(wire) if w["type"] == "show" and w["seat"] == 2 and w["card"] == "s3")
    assert not h.finished
    assert not any(w["type"] == "pass" and w.get("seat") == 2 for w in wire[at:])
    assert not h._may_hu(2, S3)
    h.groups[2].append(Group("peng", (19, 19, 19)))  # his laid 胡息 changes
    assert h._may_hu(2, S3)


def test_s7_without_chou_hu_a_declined_hu_is_offered_again(monkeypatch):
    force_wins(monkeypatch, {2: {"other_draw", "self_draw"}})
    h = hand_from("full", ["s9 s3", "", "s3"], "s10", "s3 s3")
    act(h, 0, {"type": "discard", "card": "s9"})
    pass_all(h)
    assert last(h, "show")["card"] == "s3" and "hu" in h.pending[2]
    pass_all(h)  # seat 2 declines the 胡 on seat 1's s3 (everyone passes)
    assert last(h, "show") == {"seq": last(h, "show")["seq"], "type": "show", "seat": 2, "card": "s3"}
    assert "hu" in h.pending[2]
