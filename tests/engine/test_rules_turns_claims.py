"""Rules: the turn cycle, claims, 吃/比 and 臭 (RULES.md §4.2, §5, §6, §7, §11.4, §11.6)."""

from __future__ import annotations

from apps.engine.groups import Group
from tests.engine.hand_support import act, cards, force_wins, hand_from, lay, pass_all, types_of, wires

S3, S6 = cards("s3 s6")


def last(h, type_):
    return [e.to_wire() for e in h.events if e.type == type_][-1]


# ---- §5.1 / §5.2: who may claim what ----------------------------------------------------------

def test_s5_1_only_the_next_player_may_eat_a_discard():
    # Seats 1 and 2 both hold s4 s5; only seat 1 (the discarder's next) is offered 吃.
    h = hand_from("full", ["s3", "s4 s5", "s4 s5"], "s9")
    act(h, 0, {"type": "discard", "card": "s3"})
    assert h.pending == {1: ["chi", "pass"]}


def test_s5_2_the_drawer_may_not_peng_his_own_card_others_may():
    # Seat 2 holds a pair of s3; seat 1 draws s3 and shows it (no pair of his own: no 偎).
    h = hand_from("full", ["s9", "", "s3 s3"], "s10", "s3")
    act(h, 0, {"type": "discard", "card": "s9"})
    pass_all(h)
    assert last(h, "show") == {"seq": last(h, "show")["seq"], "type": "show", "seat": 1, "card": "s3"}
    assert "peng" in h.pending[2] and "peng" not in h.pending.get(1, [])


def test_s5_2_the_player_after_the_drawers_next_may_not_eat():
    # Seat 0 (two seats after drawer 1) holds s4 s5 but is not offered 吃.
    h = hand_from("full", ["s9 s4 s5"], "s10", "s3")
    act(h, 0, {"type": "discard", "card": "s9"})
    pass_all(h)
    assert last(h, "show")["card"] == "s3" and "chi" not in h.pending.get(0, [])


def test_s5_2_a_forced_pao_means_no_peng_or_chi_is_offered():
    # Seat 2 holds a 坎 of s3: its 跑 outranks seat 1's 吃 and is executed at once.
    h = hand_from("full", ["s9", "s4 s5", "s3 s3 s3"], "s10", "s3")
    act(h, 0, {"type": "discard", "card": "s9"})
    pass_all(h)
    assert last(h, "pao")["seat"] == 2 and last(h, "pao")["from"] == "kan"
    assert S3 not in h.chou(1)


def test_s5_3_hu_outranks_a_decided_peng(monkeypatch):
    force_wins(monkeypatch, {0: {"other_draw"}})
    h = hand_from("full", ["s9", "", "s3 s3"], "s10", "s3")
    act(h, 0, {"type": "discard", "card": "s9"})
    pass_all(h)
    assert h.pending[0] == ["hu", "pass"] and "peng" in h.pending[2]
    assert act(h, 2, {"type": "peng"}) == []  # seat 0 could still 胡
    events = act(h, 0, {"type": "pass"})
    assert types_of(events) == ["pass", "peng"]


def test_s5_3_po_pao_hu_on_a_card_the_winner_himself_would_pao(monkeypatch):
    # §8.4: a player may win on a card he would 跑 (the 跑 waits for his decision).
    force_wins(monkeypatch, {2: {"other_draw"}})
    h = hand_from("full", ["s9", "", "s3 s3 s3"], "s10", "s3")
    act(h, 0, {"type": "discard", "card": "s9"})
    pass_all(h)
    assert h.claim.pao_seat == 2 and h.pending == {2: ["hu", "pass"]}
    act(h, 2, {"type": "hu"})
    assert h.result["winner"] == 2 and h.result["win_by"] == "other_draw"


# ---- §5.5 upgrades -------------------------------------------------------------------------------

def test_s5_5_chou_wei_plus_a_discard_becomes_pao():
    h = hand_from("full", ["s6", "", "s6 s6 s6"], "s10")
    lay(h, 2, "chou_wei", "s6 s6 s6")
    events = act(h, 0, {"type": "discard", "card": "s6"})
    assert events[-1].to_wire() == {"seq": events[-1].seq, "type": "pao", "seat": 2, "card": "s6", "from": "wei"}
    assert [g.kind for g in h.groups[2]] == ["pao"]


def test_s5_5_chou_wei_plus_own_draw_becomes_ti():
    h = hand_from("full", ["s9", "s6 s6 s6"], "s10", "s6")
    lay(h, 1, "chou_wei", "s6 s6 s6")
    act(h, 0, {"type": "discard", "card": "s9"})
    pass_all(h)
    assert last(h, "ti") == {"seq": last(h, "ti")["seq"], "type": "ti", "seat": 1, "card": "s6", "from": "wei"}


# ---- §6 吃 and 比 ---------------------------------------------------------------------------------

def test_s6_a_pair_of_c_with_one_copy_in_the_eating_jiao_and_one_in_a_bi():
    # Hand s3 s3 b3 s4 s5: eat s3 as [s3 s3 b3] and 比 the other s3 as [s3 s4 s5] (or the reverse):
    # one action, two groups.
    h = hand_from("full", ["s3", "s3 s3 b3 s4 s5"], "s9")
    act(h, 0, {"type": "discard", "card": "s3"})
    chis = [a for a in wires(h.legal_actions(1)) if a["type"] == "chi"]
    assert chis == [{"type": "chi", "groups": [["s3", "s3", "b3"], ["s3", "s4", "s5"]]}]


def test_s6_a_pair_of_c_that_cannot_both_be_placed_may_not_eat():
    h = hand_from("full", ["s3", "s3 s3 s4 s5"], "s9")
    act(h, 0, {"type": "discard", "card": "s3"})
    assert "chi" not in h.pending.get(1, []) and "peng" in h.pending[1]


def test_s6_chi_with_bi_lays_three_groups():
    # Hand s2 s2 s1 s3 b2 b2 s7 s10: eat s2; both remaining s2 must be 比'd.
    h = hand_from("full", ["s2", "s2 s2 s1 s3 b2 b2 s7 s10 s9"], "s6")
    act(h, 0, {"type": "discard", "card": "s2"})
    chis = [a for a in h.legal_actions(1) if a.type == "chi"]
    s2 = cards("s2")[0]
    # Every legal 吃 lays the taken s2 and both hand copies.
    assert chis and all(sum(g.count(s2) for g in a.groups) == 3 for a in chis)
    three = next(a for a in chis if len(a.groups) == 3)
    act(h, 1, wires([three])[0])
    assert [g.kind for g in h.groups[1]] == ["chi", "chi", "chi"] and h.hands[1][s2] == 0


# ---- §7 臭 ------------------------------------------------------------------------------------------

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


# ---- §11.4 死手, §11.6 time-outs ---------------------------------------------------------------

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
