"""Rules: the deal, the opening and the count rule (RULES.md §2, §3, §5.6)."""

from __future__ import annotations

from hand_support import act, cards, hand_from, pass_all, types_of, wires

from apps.engine.play.dealer import next_dealer
from apps.engine.rules import resolve_ruleset

S3, S5, S6, S7 = cards("s3 s5 s6 s7")
KANS_TI2 = "s1 s1 s1 s1 s2 s2 s2 s2"


# ---- §3.3 natural win ------------------------------------------------------------------------

def test_s3_3_two_ti_and_three_kan_make_five_and_win():
    h = hand_from("full", ["", KANS_TI2 + " s3 s3 s3 s4 s4 s4 s5 s5 s5"], "s9")
    assert types_of(h.events)[2:] == ["natural_win", "hu"]
    assert h.result["winner"] == 1 and h.result["win_by"] == "natural"


def test_s3_3_a_kan_never_counts_as_a_ti():
    # Two 提 and two 坎: four 坎+提, and only two 提 — no natural win.
    h = hand_from("full", ["", KANS_TI2 + " s3 s3 s3 s4 s4 s4"], "s9")
    assert "natural_win" not in types_of(h.events)


def test_s3_3_a_non_dealer_does_not_count_the_reveal_card():
    # Seat 1 would have a fifth 坎 with the reveal card; only the dealer counts it.
    h = hand_from("full", ["", KANS_TI2 + " s3 s3 s3 s4 s4 s4 s5 s5"], "s5")
    assert "natural_win" not in types_of(h.events)


def test_s3_3_dealer_reveal_card_makes_his_fifth_kan():
    h = hand_from("full", ["s1 s1 s1 s2 s2 s2 s3 s3 s3 s4 s4 s4 s5 s5"], "s5")
    assert types_of(h.events)[2:] == ["natural_win", "hu"]
    assert h.result["winner"] == 0
    groups = h.result["settlement"]["groups"]
    assert {"kind": "kan", "cards": ["s5", "s5", "s5"], "huxi": 3} in groups


def test_s3_3_dealer_is_first_in_seat_order_when_both_are_natural():
    h = hand_from("full", ["s4 s4 s4 s4 s5 s5 s5 s5 s6 s6 s6 s6", "s1 s1 s1 s1 s2 s2 s2 s2 s3 s3 s3 s3"], "s9")
    assert h.result["winner"] == 0


# ---- §3.4 reveal win -------------------------------------------------------------------------

COMPLETE_WITH_S7 = "b1 b2 b3 b2 b7 b10 s1 s2 s3 s4 s5 s6 b4 b5 b6 b7 b8 b9 s8 s9"


def test_s3_4_others_may_win_on_a_reveal_card_completing_the_dealers_four():
    h = hand_from("full", ["s7 s7 s7", COMPLETE_WITH_S7], "s7")
    assert h.pending == {1: ["hu", "pass"]}
    act(h, 1, {"type": "hu"})
    assert h.result["winner"] == 1 and h.result["win_by"] == "reveal"
    # full: a reveal win doubles the 胡息 (15 → 30: tun 6), a non-dealer's is not 自摸.
    s = h.result["settlement"]
    assert (s["huxi"], s["tun"]) == (15, 6)


def test_s3_6_passed_reveal_completing_the_dealers_four_is_an_opening_ti():
    h = hand_from("full", ["s7 s7 s7", COMPLETE_WITH_S7], "s7")
    events = act(h, 1, {"type": "pass"})
    assert [e.to_wire() for e in events][1] == {"seq": 4, "type": "ti", "seat": 0, "card": "s7", "from": "deal"}


DEALER_REVEAL = "b1 b1 b1 b2 b2 b2 b3 b3 b3 s1 s2 s3 s4 s5 s6 s7 s8 s9 b4 b5"
SEAT1_REVEAL = "s1 s1 s1 s2 s2 s2 s3 s3 s3 b10 b10 b10 b7 b8 b9 s4 s5 s6 b4 b5"


def test_s3_4_reveal_win_priority_is_seat_order_from_the_dealer():
    h = hand_from("changsha", [DEALER_REVEAL, SEAT1_REVEAL], "b6")
    assert h.pending == {0: ["hu", "pass"], 1: ["hu", "pass"]}
    act(h, 1, {"type": "hu"})
    assert not h.finished  # the dealer comes first and has not decided
    act(h, 0, {"type": "pass"})
    assert h.result["winner"] == 1
    # changsha: a non-dealer's reveal win is 地胡.
    assert {"name": "di_hu", "fan": 5} in h.result["settlement"]["mingtang"]


def test_s3_4_dealers_reveal_win_is_tian_hu_in_changsha():
    h = hand_from("changsha", [DEALER_REVEAL, SEAT1_REVEAL], "b6")
    act(h, 0, {"type": "hu"})
    assert h.result["winner"] == 0
    assert {"name": "tian_hu", "fan": 5} in h.result["settlement"]["mingtang"]


def test_s3_4_dealer_reveal_card_on_his_kan_is_a_ti_with_a_jiang():
    dealer = "b5 b5 b5 s1 s2 s3 b1 b2 b3 s4 s5 s6 b7 b8 b9 s9 s9 s9 s8 s8"
    h = hand_from("full", [dealer], "b5")
    assert h.pending == {0: ["hu", "pass"]}
    act(h, 0, {"type": "hu"})
    s = h.result["settlement"]
    kinds = [g["kind"] for g in s["groups"]]
    assert kinds.count("ti") == 1 and kinds.count("jiang") == 1 and len(kinds) == 7
    # 12 + 3 + 6 + 3 = 24 胡息, ×2 (天胡) = 48 → tun 12, + 1 自摸 (the dealer's reveal win).
    assert (s["huxi"], s["tun"]) == (24, 13)


# ---- §3.5–3.7 and §5.6 at the opening -------------------------------------------------------

def test_s5_6_dealer_with_one_opening_ti_discards_after_the_reveal():
    h = hand_from("full", ["s5 s5 s5 s5"], "s1")
    assert h.held(0) == 21 and h.count_of(0) == 20
    assert h.phase == "discard" and h.to_act() == [0]


def test_s5_6_dealer_whose_reveal_card_makes_his_second_ti_keeps():
    h = hand_from("full", ["s5 s5 s5 s5 s6 s6 s6"], "s6", "s2")
    assert [g.kind for g in h.groups[0]] == ["ti", "ti"]
    assert h.held(0) == 21 and h.count_of(0) == 21
    draws = [e.to_wire() for e in h.events if e.type == "draw"]
    assert draws[0]["seat"] == 1


def test_s5_6_dealer_two_opening_ti_then_a_pao_keeps_then_a_peng_discards():
    # 八块/重跑: the third 4-card group is not followed by a discard; the next acquisition is.
    h = hand_from("full", [KANS_TI2 + " s3 s3 s3 s6 s6"], "s9", "s3 s6")
    assert h.held(0) == 21 and h.count_of(0) == 21
    # Seat 1 drew s3: the dealer's 坎 takes it as 跑 (22 held, count 22): seat 1 draws again.
    assert h.claim.pao_seat == 0
    pass_all(h)  # a filler hand may be offered 胡 on the s3
    paos = [e.to_wire() for e in h.events if e.type == "pao"]
    assert paos == [{"seq": paos[0]["seq"], "type": "pao", "seat": 0, "card": "s3", "from": "kan"}]
    assert h.held(0) == 22 and h.count_of(0) == 22
    assert h.pending[0] == ["pass", "peng"]  # seat 1 showed s6
    act(h, 0, {"type": "peng"})
    if not h.phase == "discard":  # the filler hand of seat 1 may be offered 胡: he passes
        act(h, 1, {"type": "pass"})
    assert h.held(0) == 23 and h.phase == "discard" and h.to_act() == [0]


def test_s5_6_non_dealer_with_two_opening_ti_keeps_after_a_peng():
    h = hand_from("full", ["s3", KANS_TI2 + " s3 s3"], "s9")
    assert h.held(1) == 20 and h.count_of(1) == 21
    act(h, 0, {"type": "discard", "card": "s3"})
    events = act(h, 1, {"type": "peng"})
    # 21 held = count 21: no discard, seat 2 draws at once.
    assert types_of(events)[:2] == ["peng", "draw"] and events[1].to_wire()["seat"] == 2


# ---- §2 seats, players, dealer ---------------------------------------------------------------

def test_s2_deal_all_dealer_holds_fifteen_and_discards():
    h = hand_from("chenzhou", ["s5"], "s1", players=4)
    assert [h.held(s) for s in range(4)] == [15, 14, 14, 14]
    assert h.count_of(0) == 14 and h.phase == "discard" and h.to_act() == [0]
    assert len(h.stock) == 23


def test_s2_sit_out_next_player_skips_the_sitter():
    # Dealer 0: seat 2 sits out; seat 1's next player is seat 3.
    h = hand_from("luzhou", ["s9", "s3", "s4 s5"], "s10", players=4)
    assert h.active_seats == [0, 1, 3] and h.next_seat(1) == 3 and h.next_seat(3) == 0
    act(h, 0, {"type": "discard", "card": "s9"})
    assert 2 not in h.pending
    pass_all(h)
    draws = [e.to_wire()["seat"] for e in h.events if e.type == "draw"]
    assert draws[0] == 1


def test_s2_two_players_the_other_player_is_next_and_may_eat():
    h = hand_from("chenzhou", ["s3", "s4 s5"], "s10", players=2)
    act(h, 0, {"type": "discard", "card": "s3"})
    assert {"type": "chi", "groups": [["s3", "s4", "s5"]]} in wires(h.legal_actions(1))


def test_s2_stay3_third_consecutive_draw_passes_the_deal():
    rs = resolve_ruleset("full")
    assert next_dealer(rs, 1, None, 0) == (1, 1)
    assert next_dealer(rs, 1, None, 1) == (1, 2)
    assert next_dealer(rs, 1, None, 2) == (2, 0)
    assert next_dealer(rs, 2, None, 2) == (0, 0)
    assert next_dealer(rs, 1, 0, 2) == (0, 0)  # the winner deals


def test_s2_chenzhou_passes_the_deal_on_every_draw():
    rs = resolve_ruleset("chenzhou", players=2)
    assert next_dealer(rs, 1, None, 0)[0] == 0
    assert next_dealer(resolve_ruleset("chenzhou", players=4), 3, None, 0)[0] == 0
    assert next_dealer(rs, 0, 0, 0) == (0, 0)
