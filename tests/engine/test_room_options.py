"""The room options of RULES.md §3.8 (底牌明示), §8.6 (逃跑) and §9.6 (起胡, 封顶, 有胡必胡, 抽牌).

Each test names the sentence of RULES.md it checks.
"""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import pytest
from hand_support import act, cards, make_deck, pass_all, types_of, wires

from apps.engine.actions import Action, IllegalAction
from apps.engine.cards import RED, card_name, parse_card
from apps.engine.cli.simulate import hand_seed, simulate
from apps.engine.groups import Group
from apps.engine.play.events import AUDIT
from apps.engine.play.hand import Hand
from apps.engine.play.invariants import check
from apps.engine.play.observer import build_view
from apps.engine.records.replay import record_of, replay
from apps.engine.rules import PRESETS, RuleError, resolve_ruleset
from apps.engine.scoring.fast import can_win, score_win
from apps.engine.scoring.huxi import current_huxi
from apps.engine.scoring.settlement import capped, escape_penalty, escape_split, settle, settle_amounts
from apps.engine.shuffle import deck_from_seed

RECORDS = Path(__file__).parent / "records"
ESCAPE = {"type": "escape"}
HU = {"type": "hu"}


def _counts(text: str) -> list[int]:
    vec = [0] * 20
    for c in cards(text):
        vec[c] += 1
    return vec


def _to_end(deck: list[int], text: str, stock_from: int = 61) -> list[int]:
    """The deck with the named cards moved, in order, from the stock to its very end."""
    deck = list(deck)
    for moved, c in enumerate(cards(text)):
        i = max(i for i in range(stock_from, len(deck) - moved) if deck[i] == c)
        deck.append(deck.pop(i))
    return deck


def _luzhou4(deck: list[int], dealer: int = 0, **options) -> Hand:
    return Hand(resolve_ruleset("luzhou", options, players=4), dealer, deck=deck)


# ---- §3.8 底牌明示 (bottom_shown) -------------------------------------------------------------------

def test_s3_8_allowed_only_with_4_players_in_sit_out():
    """§3.8: "Allowed only with 4 players in sit_out"."""
    for preset, players, options in (("luzhou", 3, {}), ("luzhou", 2, {}), ("chenzhou", 4, {}),
                                     ("luzhou", 4, {"four_player_mode": "deal_all"}), ("full", 3, {})):
        with pytest.raises(RuleError, match="^bottom_shown:"):
            resolve_ruleset(preset, {**options, "bottom_shown": True}, players=players)
    assert resolve_ruleset("chenzhou", {"four_player_mode": "sit_out", "bottom_shown": True}, players=4).bottom_shown


def test_s3_8_on_by_default_for_luzhou_with_4_players_off_everywhere_else():
    """§3.8: "on by default for luzhou with 4 players, off everywhere else"."""
    assert resolve_ruleset("luzhou", players=4).bottom_shown is True
    assert resolve_ruleset("luzhou", {"bottom_shown": False}, players=4).bottom_shown is False
    assert resolve_ruleset("luzhou", {"four_player_mode": "deal_all"}, players=4).bottom_shown is False
    assert resolve_ruleset("chenzhou", {"four_player_mode": "sit_out"}, players=4).bottom_shown is False
    for name, rs in PRESETS.items():
        assert rs.bottom_shown is False, name
        for n in (2, 3):
            if n in (2, 3) and name in ("chenzhou", "luzhou") or n == 3:
                assert resolve_ruleset(name, players=n).bottom_shown is False


def test_s3_8_1_no_reveal_card_the_dealer_gets_the_21st_face_down():
    """§3.8.1: "There is no reveal card: the card that would be turned up goes face down to the dealer
    as his 21st card"; the deal event gives the dealer 21 cards (ENGINE_CLI.md), the others see none."""
    deck = deck_from_seed(bytes(32))
    h = _luzhou4(deck, dealer=1)
    assert h.reveal is None and "reveal" not in types_of(h.events)
    order = [1, 2, 0]  # the seat opposite dealer 1 (seat 3) sits out
    assert sorted(h.events[0].to_wire()["hands"][1]) == sorted(card_name(c) for c in deck[0:20] + [deck[60]])
    for position, seat in enumerate(order[1:], start=1):
        assert sorted(h.events[0].to_wire()["hands"][seat]) == sorted(
            card_name(c) for c in deck[20 * position : 20 * (position + 1)])
    assert h.stock[:] == [c for c in deck[61:]] or "bottom_to_top" in types_of(h.events)
    assert len(h.stock) == 19
    own = h.events[0].for_viewer(1)["hands"][1]
    assert len(own) == 21 and None not in own  # the dealer sees his own 21st card
    for viewer in (0, 2, 3, None):
        assert h.events[0].for_viewer(viewer)["hands"][1] == [None] * 21
        assert build_view(h, viewer)["reveal"] is None
        assert build_view(h, viewer)["hands"][1] is None
    assert build_view(h, 1)["hands"][1] == sorted(h.events[0].to_wire()["hands"][1], key=parse_card)
    assert h.to_act() == [1] and h.phase == "discard"  # the dealer holds 21: he discards first
    assert check(h) == []


def test_s3_8_1_no_reveal_win():
    """§3.8.1: "Step 4 (reveal wins, 天胡/地胡 on the reveal card) does not happen"."""
    waiting = "b1 b1 b1 b3 b3 b3 s1 s2 s3 s7 s8 s9 b4 b5 b6 b8 b9 b10 s4 s5"  # wins on s6
    deck = make_deck(["", waiting, ""], "s6")
    plain = _luzhou4(deck, bottom_shown=False)
    assert plain.pending == {1: ["hu", "pass"]}  # without the option: a reveal win is offered
    shown = _luzhou4(deck)
    assert shown.pending == {} and shown.to_act() == [0] and shown.hands[0][parse_card("s6")] >= 1


def test_s3_8_1_natural_win_is_checked_with_the_dealers_21_cards():
    """§3.8.1: "the natural win of step 3 is checked with the dealer's 21 cards"."""
    deck = make_deck(["s1 s1 s1 s1 s2 s2 s2 s2 s3 s3 s3", "", ""], "s3")  # the 21st makes the 3rd 提
    h = _luzhou4(deck)
    assert types_of(h.events)[:1] == ["deal"] and "natural_win" in types_of(h.events)
    assert h.result["winner"] == 0 and h.result["win_by"] == "natural"
    assert check(h, roundtrip=True) == []


def test_s3_8_2_the_last_stock_card_is_turned_up_for_everyone():
    """§3.8.2: "the last card of the stock (the one that would be drawn last) is turned face up for
    everyone"; views carry it as ``bottom_card``."""
    deck = _to_end(make_deck(["", "", ""], "b5", stock="s4"), "s4")
    h = _luzhou4(deck)
    assert [e.to_wire() for e in h.events if e.type.startswith("bottom")] == [
        {"seq": 2, "type": "bottom_shown", "card": "s4"}]
    assert h.stock[-1] == parse_card("s4") and h.bottom_card == parse_card("s4")
    for viewer in (0, 1, 2, 3, None, AUDIT):
        assert build_view(h, viewer)["bottom_card"] == "s4"
        assert h.events[1].for_viewer(viewer) is not None and h.events[1].for_viewer(viewer)["card"] == "s4"


def test_s3_8_2_a_red_last_card_moved_twice():
    """§3.8.2: "While that card is red, it is moved to the top of the stock (it is the next card drawn)
    and the new last card is turned up ... Each move is an event all viewers see"."""
    deck = _to_end(make_deck(["", "", ""], "b5", stock="s4 b7 s2"), "s4 b7 s2")  # last: s2, then b7, s4
    h = _luzhou4(deck)
    bottom = [e.to_wire() for e in h.events if e.type.startswith("bottom")]
    assert [(e["type"], e["card"]) for e in bottom] == [
        ("bottom_shown", "s2"), ("bottom_to_top", "s2"), ("bottom_shown", "b7"), ("bottom_to_top", "b7"),
        ("bottom_shown", "s4")]
    assert [card_name(c) for c in h.stock[:2]] == ["b7", "s2"]  # the last moved is drawn first
    assert card_name(h.stock[-1]) == "s4" and len(h.stock) == 19
    for ev in h.events[1:6]:
        for viewer in (0, 1, 2, 3, None):
            assert {**ev.for_viewer(viewer), "seq": 0} == {**ev.to_wire(), "seq": 0}
    # the moved cards are the first two draws
    h.apply(0, Action.from_wire({"type": "discard", "card": card_name(max(
        c for c in range(20) if 0 < h.hands[0][c] < 3))}))
    pass_all(h)
    draws = [e.to_wire()["card"] for e in h.events if e.type == "draw"]
    assert draws[:1] == ["b7"]
    assert check(h) == []


def test_s3_8_2_if_every_stock_card_is_red_the_last_one_stays():
    """§3.8.2: "if every stock card is red, the last one stays"."""
    red = [c for c in range(20) for _ in range(4) if c in RED]  # 24 red cards
    others = [c for c in range(20) for _ in range(4) if c not in RED] + red[19:]
    random.Random(1).shuffle(others)
    deck = others + red[:19]  # the whole stock is red
    h = _luzhou4(deck)
    assert all(c in RED for c in h.stock)
    assert [e.type for e in h.events if e.type.startswith("bottom")] == ["bottom_shown"]
    assert h.stock == deck[61:]


def _last_card_hand(stock_pos: int, seat3: str, seat1: str, dealer: str = "s6 s6", **options) -> Hand:
    """Dealer 0 (sitter 2) holds ``dealer`` (a pair of s6) and discards a card nobody takes; the
    stock ends with two s6; seat 1 then draws stock[stock_pos] (an s6)."""
    deck = _to_end(make_deck([dealer, seat1, seat3], "b7", stock="s6 s6"), "s6 s6")
    h = _luzhou4(deck, **options)
    assert card_name(h.stock[-1]) == "s6" == card_name(h.stock[-2]) and h.to_act() == [0]
    h._stock_pos = stock_pos  # as if the stock before it had been drawn (cards are not checked here)
    for discard in h.legal_actions(0):  # a discard nobody takes: seat 1 draws next
        if discard.card in (parse_card("s6"), parse_card("b7")):
            continue
        after = copy.deepcopy(h)
        after.apply(0, discard)
        if after.phase == "claim" and after.claim is not None and after.claim.source == "discard":
            pass_all(after)  # seat 1 lets it go
        if after.phase == "claim" and after.claim is not None and after.claim.seat == 1 and any(
                e.type == "draw" for e in after.events[-3:]):
            return after
        if after.phase == "discard" and after.turn == 1:  # his forced 偎 left him to discard
            return after
    raise AssertionError("no quiet discard for the dealer")


WINS_ON_S6 = "b1 b1 b1 b3 b3 b3 s1 s2 s3 s7 s8 s9 b4 b5 b6 b8 b9 b10 s4 s5"


def test_s3_8_3_nobody_wins_on_the_last_card_while_peng_and_chi_on_it_still_work():
    """§3.8.3: "Nobody may win on the last stock card when it is drawn ... every other claim works as
    usual": 碰 (the dealer's pair) and 吃 (the drawer, his next) are offered, 胡 (seat 3) is not."""
    before_last = _last_card_hand(17, WINS_ON_S6, "s7 s8")
    assert before_last.claim.source == "draw" and not before_last.claim.last_card
    assert before_last.pending[3][-2:] == ["hu", "pass"] and before_last.pending[0] == ["pass", "peng"]
    last = _last_card_hand(18, WINS_ON_S6, "s7 s8")
    assert last.claim.source == "draw" and last.claim.last_card
    s6 = parse_card("s6")
    assert can_win(last.rs, tuple(last.hands[3]), last.groups[3], s6, "other_draw")  # he would win
    assert last.pending == {0: ["pass", "peng"], 1: ["chi", "pass"], 3: ["chi", "pass"]}
    act(last, 3, {"type": "pass"})
    act(last, 1, {"type": "pass"})
    act(last, 0, {"type": "peng"})
    assert last.groups[0][-1] == Group("peng", (s6, s6, s6)) and last.to_act() == [0]


def test_s3_8_3_no_wei_hu_on_the_last_card_so_no_hai_di():
    """§3.8.3: "on that draw there is no 胡 option (§5.2.3 偎胡/提胡 ...), so 海底 cannot happen"."""
    wei_wins = "s6 s6 b1 b1 b1 b3 b3 b3 s1 s2 s3 s7 s8 s9 b4 b5 b6 b8 b9 b10"
    before_last = _last_card_hand(17, "", wei_wins, dealer="")
    assert before_last.pending == {1: ["hu", "pass"]} and before_last.claim.source == "self"
    last = _last_card_hand(18, "", wei_wins, dealer="")
    assert last.events[-1].type == "wei" and last.events[-1].seat == 1
    assert last.pending == {} and last.to_act() == [1] and last.phase == "discard"
    assert {"type": "hu"} not in wires(last.legal_actions(1))


def test_s3_8_4_the_sitter_sees_only_what_a_spectator_sees():
    """§3.8.4: "The sitter ... takes no part in the hand and sees only what a spectator sees"."""
    for i in range(6):
        seed = hand_seed("sitter", i)
        h = Hand(resolve_ruleset("luzhou", {"escape_penalty": i % 2 == 0}, players=4), i % 4, seed)
        sitter = h.rs.sitter(h.dealer)
        rng = random.Random(seed)
        from apps.engine.bots.choose import bot_choose

        while True:
            spectator, own = build_view(h, None), build_view(h, sitter)
            assert own["hands"][sitter] == [] and spectator["hands"][sitter] in (None, [])  # he holds none
            own["hands"][sitter] = spectator["hands"][sitter]
            assert {k: v for k, v in own.items() if k not in ("viewer", "chou")} == {
                k: v for k, v in spectator.items() if k != "viewer"}
            assert own["legal_actions"] == [] and own["pending"] == [] and own["chou"] == []
            if h.finished:
                break
            seat = h.to_act()[0]
            h.apply(seat, bot_choose(h, seat, "greedy", rng))
        assert [e.for_viewer(sitter) for e in h.events] == [e.for_viewer(None) for e in h.events]
        assert h.rs.bottom_shown and "bottom_shown" in types_of(h.events)


def test_s3_8_the_hard_bot_plays_from_a_view_with_the_shown_bottom_card():
    """The searching bot (托管) decides from a bottom_shown view: no reveal card, a public last card."""
    from apps.engine.bots.choose import bot_choose
    from apps.engine.bots.search import Budget

    h = Hand(resolve_ruleset("luzhou", players=4), 0, hand_seed("hard-bottom", 0))
    rng = random.Random(0)
    for _ in range(6):
        if h.finished:
            break
        seat = h.to_act()[0]
        action = bot_choose(h, seat, "hard", rng, budget=Budget(worlds=3, cpu_ms=None, wall_ms=None))
        assert action in h.legal_actions(seat)
        h.apply(seat, action)


# ---- §8.6 逃跑 (escape_penalty) ---------------------------------------------------------------------

# Dealer 0 holds 3 胡息 (one of 一二三 / 二七十 small), seat 1 holds 12 (two 坎 of big cards); seat 2 leaves.
SEAT0 = "s1 s2 s3 s4 s5 s6 s7 s8 s9 s10 b1 b3 b4 b5 b6 b8 b9 s1 s4 s9"
SEAT1 = "b1 b1 b1 b2 b2 b7 b10 s2 s7 s9 b3 b5 b8 b9 s3 s5 s6 s8 b4 b6"


def _escape_hand(preset="full", seat0=SEAT0, seat1=SEAT1, **options) -> Hand:
    rs = resolve_ruleset(preset, {"escape_penalty": True, **options}, players=3)
    return Hand(rs, 0, deck=make_deck([seat0, seat1, ""], "b6"))


def test_s8_6_off_by_default_and_escape_is_illegal_without_it():
    """§8.6: "off by default in every preset. Without it a player who leaves is played by 托管 ... and
    nothing else changes"."""
    for name, rs in PRESETS.items():
        assert rs.escape_penalty is False, name
    h = Hand(resolve_ruleset("full"), 0, deck=make_deck([SEAT0, SEAT1, ""], "b6"))
    for seat in range(3):
        assert ESCAPE not in wires(h.legal_actions(seat))
        with pytest.raises(IllegalAction):
            act(h, seat, ESCAPE)
    assert h.default_action(0).type == "discard"


def test_s8_6_escape_is_legal_for_every_active_seat_and_never_makes_a_seat_waited_for():
    """§8.6: "`escape` is in the legal actions of every active seat while the hand is in play and
    no claim window is open ..., whether or not it is his turn; it never makes a seat one the hand
    waits for (`to_act`)"."""
    h = _escape_hand()
    assert h.to_act() == [0]
    assert wires(h.legal_actions(1)) == [ESCAPE] and wires(h.legal_actions(2)) == [ESCAPE]
    assert ESCAPE in wires(h.legal_actions(0)) and len(h.legal_actions(0)) > 1
    assert build_view(h, 1)["legal_actions"] == [ESCAPE] and build_view(h, 1)["to_act"] == [0]
    assert h.default_action(1) is None and h.default_action(0).type == "discard"  # a time-out never escapes
    # a sit_out sitter is no active seat
    lz = Hand(resolve_ruleset("luzhou", {"escape_penalty": True}, players=4), 0, hand_seed("sit", 2))
    assert lz.phase == "discard"  # (seed 1 opens with a claim window: no escape then)
    assert lz.legal_actions(2) == [] and all(ESCAPE in wires(lz.legal_actions(s)) for s in (0, 1, 3))
    with pytest.raises(IllegalAction):
        act(lz, 2, ESCAPE)


def test_s8_6_current_best_huxi():
    """§8.6: *H* sums "each one's current best 胡息: the highest 胡息 of his laid groups plus any
    grouping of his hand cards into groups of §4.1 (坎 whole, cards left over scoring 0, no complete
    hand or pair required, no multiplier), with the preset's 胡息 table"."""
    full, lz, cs = PRESETS["full"], PRESETS["luzhou"], PRESETS["changsha"]
    assert current_huxi(full, _counts(SEAT0 + " b6"), []) == 3
    assert current_huxi(full, _counts(SEAT1), []) == 12
    # 坎 whole: s1 s1 s1 s2 s3 is a 坎 (3), never 一二三 (3) with two s1 left over
    assert current_huxi(full, _counts("s1 s1 s1 s2 s3"), []) == 3
    # two 一二三 beat one 二七十 when s2 is short: s1 s1 s2 s2 s3 s3 s7 s10 -> 6
    assert current_huxi(full, _counts("s1 s1 s2 s2 s3 s3 s7 s10"), []) == 6
    # laid groups count with the preset's table; changsha's 一二三 scores 0, luzhou's 二七十 6/9
    laid = [Group("pao", (5, 5, 5, 5)), Group("peng", (19, 19, 19))]
    assert current_huxi(full, _counts("b2 b7 b10"), laid) == 6 + 3 + 6
    assert current_huxi(lz, _counts("b2 b7 b10"), laid) == (6 + 3) + 9 + 9
    assert current_huxi(cs, _counts("s1 s2 s3 b1 b2 b3"), []) == 0


def test_s8_6_h_below_12_pays_8_times_base():
    """§8.6: the leaver pays `(max(0, floor((H − 12) / 3)) + 8) × base`: H < 12 → 8 × base."""
    h = _escape_hand(seat1="s1 s3 s4 s5 s6 s8 s9 b1 b3 b4 b5 b6 b8 b9 s1 s4 s8 b4 b9 b5")  # 0: H = 3
    events = act(h, 2, ESCAPE)
    assert [e.type for e in events] == ["escape"]
    wire = events[0].to_wire()
    assert wire["seat"] == 2 and wire["penalty"] == 8
    assert wire["settlement"]["seat_huxi"] == {0: 3, 1: 0} and wire["settlement"]["total_huxi"] == 3
    assert wire["settlement"]["deltas"] == {0: 4, 1: 4, 2: -8}
    assert h.finished and h.result == {"escape": 2, "penalty": 8, "settlement": wire["settlement"]}
    assert settle(h, base=3)["total"] == {0: 12, 1: 12, 2: -24}
    assert [escape_penalty(x) for x in (0, 11, 12, 14, 15, 17, 18, 40)] == [8, 8, 8, 8, 9, 9, 10, 17]


def test_s8_6_the_remainder_one_point_each_in_seat_order_from_the_leavers_next():
    """§8.6: "the amount is split equally among the other active players, a remainder one point each
    in seat order from the leaver's next"."""
    h = _escape_hand()  # H = 3 + 12 = 15: penalty 9, two others
    act(h, 2, ESCAPE)
    assert h.result["penalty"] == 9
    assert h.result["settlement"]["deltas"] == {0: 5, 1: 4, 2: -9}  # seat 0 is seat 2's next
    assert settle(h, base=1)["total"] == {0: 5, 1: 4, 2: -9}
    assert settle(h, base=2)["total"] == {0: 9, 1: 9, 2: -18}
    h1 = _escape_hand()
    act(h1, 1, ESCAPE)  # now the others are 0 and 2; seat 2 is the leaver's next
    others = h1.result["settlement"]["seat_huxi"]
    assert set(others) == {0, 2}
    if h1.result["penalty"] % 2:
        assert h1.result["settlement"]["deltas"][2] == h1.result["settlement"]["deltas"][0] + 1
    assert escape_split(PRESETS["full"], 0, 11, [0, 1, 2]) == {0: -11, 1: 6, 2: 5}
    assert escape_split(PRESETS["full"], 2, 11, [0, 1, 2]) == {0: 6, 1: 5, 2: -11}
    sit_out = resolve_ruleset("luzhou", players=4)  # the sitter (seat 2 of dealer 0) gets nothing
    assert escape_split(sit_out, 3, 13, [0, 1, 3]) == {0: 7, 1: 6, 2: 0, 3: -13}
    assert escape_split(resolve_ruleset("chenzhou", players=2), 1, 9, [0, 1]) == {0: 9, 1: -9}


def test_s8_6_no_piao_no_winner_no_draw_and_the_dealer_keeps_the_deal():
    """§8.6: "No 飘 is paid. The hand's result is {"escape": seat}; it is no draw and has no winner;
    the dealer keeps the deal for the next hand. The settlement is zero-sum"."""
    rs = resolve_ruleset("chenzhou", {"escape_penalty": True}, players=3)
    assert rs.piao
    h = Hand(rs, 1, hand_seed("escape-piao", 0))
    act(h, 2, ESCAPE)
    assert h.result["escape"] == 2 and "winner" not in h.result and "draw" not in h.result
    amounts = settle(h, base=2, piao={0: 5, 1: 3, 2: 2})
    assert amounts["piao"] == {0: 0, 1: 0, 2: 0}
    assert sum(amounts["total"].values()) == 0 and amounts["total"][2] == -2 * h.result["penalty"]
    assert h.next_dealer(2) == (1, 0)
    assert check(h) == []


def test_s8_6_no_escape_while_a_claim_window_is_open():
    """§8.6: "`escape` is in the legal actions of every active seat while the hand is in play and
    **no claim window is open** (§5.3: everyone knows when one is) ... (While a shown or discarded
    card awaits answers, a leaver could otherwise dodge a 胡 on it, his own discard included, for the
    fixed price.)": in a window no seat may leave, neither one it waits for nor one it does not; once
    the window is closed everyone may again, and leaving ends the hand at once."""
    from apps.engine.bots.choose import bot_choose

    rs = resolve_ruleset("full", {"escape_penalty": True})
    done = 0
    for i in range(40):
        seed = hand_seed("escape-window", i)
        h, rng = Hand(rs, 0, seed), random.Random(seed)
        while not h.finished and not (h.phase == "claim" and h.claim.source != "self" and h.to_act()):
            seat = h.to_act()[0]
            h.apply(seat, bot_choose(h, seat, "greedy", rng))
        if h.finished:
            continue
        waiting = h.to_act()
        for s in h.active_seats:
            assert ESCAPE not in wires(h.legal_actions(s)) and "escape" not in build_view(h, s)
            with pytest.raises(IllegalAction):
                act(h, s, ESCAPE)
        assert check(h) == []
        while not h.finished and h.phase == "claim":  # answer the window
            seat = h.to_act()[0]
            h.apply(seat, bot_choose(h, seat, "greedy", rng))
        if h.finished:
            continue
        assert waiting and all(ESCAPE in wires(h.legal_actions(s)) for s in h.active_seats)
        leaver = h.active_seats[-1]
        assert [e.type for e in act(h, leaver, ESCAPE)] == ["escape"]
        assert h.finished and h.to_act() == [] and h.result["escape"] == leaver
        assert h.card_locations()["table"] == []
        assert check(h, roundtrip=True) == []
        assert all(h.legal_actions(s) == [] for s in range(3))
        done += 1
    assert done >= 10


def test_s8_6_escape_records_replay_and_the_event_is_public():
    """§8.6 with replay: the record of an escaped hand replays; every viewer sees the escape."""
    record = json.loads((RECORDS / "full_3p_escape.json").read_text())
    h = replay(record)
    assert "escape" in h.result and record["result"] == json.loads(json.dumps(h.result))
    ev = h.events[-1]
    assert ev.type == "escape"
    for viewer in (0, 1, 2, None):
        assert {**ev.for_viewer(viewer), "seq": 0} == {**ev.to_wire(), "seq": 0}
    assert record_of(h)["options"] == {"escape_penalty": True}


# ---- §9.6 起胡 (qi_hu) -----------------------------------------------------------------------------

# 16 胡息 in full: 坎 b1 (6) + 坎 b3 (6) + 一二三 (3) + a laid 碰 of s5 (1); the winning card s10.
QI_HAND = _counts("b1 b1 b1 b3 b3 b3 s1 s2 s3 s6 s7 s8 b4 b5 b6 s8 s9")
QI_LAID = [Group("peng", (4, 4, 4))]
S10 = parse_card("s10")


def test_s9_6_qi_hu_16_huxi_wins_at_15_and_not_at_18():
    """§9.6: "Wherever §8.1 checks min_huxi, a win needs plain 胡息 ≥ max(min_huxi, qi_hu)"."""
    hand = [c for c in range(20) for _ in range(QI_HAND[c])]
    at15 = score_win(resolve_ruleset("full", {"qi_hu": 15}), hand, QI_LAID, S10, "other_draw")
    assert at15.win and at15.huxi == 16
    at18 = score_win(resolve_ruleset("full", {"qi_hu": 18}), hand, QI_LAID, S10, "other_draw")
    assert not at18.win and at18.reason == "huxi_below_min"
    assert can_win(resolve_ruleset("full", {"qi_hu": 15}), tuple(QI_HAND), QI_LAID, S10, "other_draw")
    assert not can_win(resolve_ruleset("full", {"qi_hu": 18}), tuple(QI_HAND), QI_LAID, S10, "other_draw")
    # luzhou plays from 10: qi_hu 15 raises its gate, qi_hu 0 keeps min_huxi
    assert resolve_ruleset("luzhou", {"qi_hu": 15}).win_min_huxi == 15
    assert resolve_ruleset("luzhou").win_min_huxi == 10 and resolve_ruleset("full", {"qi_hu": 0}).win_min_huxi == 15


def test_s9_6_qi_hu_leaves_the_tun_formula_alone():
    """§9.6: "The tun formula of §9.1 is unchanged (it keeps using min_huxi)"."""
    hand = [c for c in range(20) for _ in range(QI_HAND[c])]
    plain = score_win(resolve_ruleset("full"), hand, QI_LAID, S10, "other_draw")
    at15 = score_win(resolve_ruleset("full", {"qi_hu": 15}), hand, QI_LAID, S10, "other_draw")
    assert plain.tun == at15.tun == 1 and plain.score == at15.score
    lz = score_win(resolve_ruleset("luzhou", {"qi_hu": 15}), hand, QI_LAID, S10, "other_draw")
    assert lz.win and lz.tun == (lz.huxi - 10) // 3 + 1  # still from luzhou's min_huxi 10


def test_s9_6_qi_hu_does_not_gate_a_natural_win():
    """§9.6: "A natural win (§3.3) is not gated, as today"."""
    deck = make_deck(["s1 s1 s1 s2 s2 s2 s4 s4 s4 s5 s5 s5 s8 s8 s8", "", ""], "b9")
    h = Hand(resolve_ruleset("full", {"qi_hu": 21}), 0, deck=deck)
    assert h.result["win_by"] == "natural" and h.result["settlement"]["huxi"] < 21


def test_s9_6_qi_hu_values():
    """§9.6: `qi_hu` is "0 (default: only min_huxi), 15, 18 or 21"."""
    for name in PRESETS:
        assert PRESETS[name].qi_hu == 0
    for bad in (1, 16, 24, -15):
        with pytest.raises(RuleError, match="^qi_hu:"):
            resolve_ruleset("full", {"qi_hu": bad})
    with pytest.raises(RuleError, match="^qi_hu:"):
        resolve_ruleset("full", {"qi_hu": "18"})


# ---- §9.6 封顶 (score_cap) -------------------------------------------------------------------------

def _capped_win(preset: str, players: int, cap: int, options=None, want=lambda h: True) -> Hand:
    rs = resolve_ruleset(preset, {"score_cap": cap, **(options or {})}, players=players)
    from apps.engine.bots.choose import bot_choose

    for i in range(400):
        seed = hand_seed(f"cap-{preset}", i)
        h = Hand(rs, i % players, seed)
        rng = random.Random(seed)
        while not h.finished:
            seat = h.to_act()[0]
            h.apply(seat, bot_choose(h, seat, "greedy", rng))
        if h.result.get("winner") is not None and "cap" in h.result["settlement"] and want(h):
            return h
    raise AssertionError("no capped win found")


def test_s9_6_a_capped_hand_with_piao_on_top():
    """§9.6: "Each loser's score (tun × fan, before the base and 飘) is at most score_cap ... 飘 is
    added on top, uncapped. The settlement's score is the capped value, and it carries "cap"
    when the cap changed anything"."""
    h = _capped_win("chenzhou", 3, 1)
    settlement = h.result["settlement"]
    assert settlement["score"] == 1 and settlement["cap"] == 1
    assert settlement["tun"] * settlement["fan"] > 1  # the cap changed something
    winner = h.result["winner"]
    piao = {0: 1, 1: 2, 2: 3}
    amounts = settle(h, base=2, piao=piao)
    for loser in (s for s in range(3) if s != winner):
        assert amounts["score"][loser] == -1 * 2  # capped score × base
        assert amounts["piao"][loser] == -(piao[loser] + piao[winner])  # 飘 on top, uncapped
    assert sum(amounts["total"].values()) == 0
    assert check(h) == []


def test_s9_6_the_cap_only_shows_when_it_changed_something():
    """§9.6: "cap" is there only "when the cap changed anything"."""
    rs = resolve_ruleset("full", {"score_cap": 5})
    assert capped(rs, {"win": True, "score": 5}) == {"win": True, "score": 5}
    assert capped(rs, {"win": True, "score": 6}) == {"win": True, "score": 5, "cap": 5}
    assert capped(resolve_ruleset("full"), {"win": True, "score": 600}) == {"win": True, "score": 600}
    hand = [c for c in range(20) for _ in range(QI_HAND[c])]
    big = score_win(resolve_ruleset("full"), hand, QI_LAID, S10, "other_draw")
    from apps.engine.cli.score_requests import run_score

    request = {"preset": "full", "options": {"score_cap": 1}, "players": 3,
               "hand": [card_name(c) for c in hand], "groups": [{"kind": "peng", "cards": ["s5", "s5", "s5"]}],
               "win_card": "s10", "win_by": "self_draw"}
    text, code = run_score(json.dumps(request))
    out = json.loads(text)
    assert code == 0 and out["win"] and out["score"] == 1 and out["cap"] == 1 and big.score >= 1


def test_s9_6_with_pao_pays_all_the_discarder_pays_the_sum_of_capped_amounts():
    """§9.6: "with pao_pays = "all" the discarder pays the sum of the capped amounts"."""
    rs = resolve_ruleset("chenzhou", {"score_cap": 4, "pao_pays": "all"}, players=3)
    score = capped(rs, {"win": True, "score": 10})["score"]
    amounts = settle_amounts(rs, 0, score, [0, 1, 2], base=1, piao={0: 1, 1: 1, 2: 2}, discarder=1)
    assert amounts["score"] == {0: 8, 1: -8, 2: 0}
    assert amounts["piao"] == {0: 5, 1: -5, 2: 0}


def test_s9_6_score_cap_values():
    """§9.6: `score_cap` is "0 (default: none) or a positive number"."""
    assert all(rs.score_cap == 0 for rs in PRESETS.values())
    with pytest.raises(RuleError, match="^score_cap:"):
        resolve_ruleset("full", {"score_cap": -1})
    assert resolve_ruleset("full", {"score_cap": 64}).score_cap == 64


# ---- §9.6 有胡必胡 (forced_win) ----------------------------------------------------------------------

def test_s9_6_forced_win_leaves_exactly_hu():
    """§9.6: "a player who may win (reveal card, a shown card, 偎胡/提胡 on his own draw, a discard
    where allowed) must: 胡 is his only legal action in that decision"."""
    waiting = "b1 b1 b1 b3 b3 b3 s1 s2 s3 s7 s8 s9 b4 b5 b6 b8 b9 b10 s4 s5"  # wins on s6
    deck = make_deck(["", waiting, "s6 s6"], "s6")  # seat 2 could 碰 the card as well
    free = Hand(resolve_ruleset("full"), 0, deck=deck)
    assert free.pending == {1: ["hu", "pass"]}
    forced = Hand(resolve_ruleset("full", {"forced_win": True}), 0, deck=deck)
    assert wires(forced.legal_actions(1)) == [HU]
    assert forced.default_action(1).type == "hu"
    with pytest.raises(IllegalAction):
        act(forced, 1, {"type": "pass"})
    act(forced, 1, HU)
    assert forced.result["winner"] == 1 and forced.result["win_by"] == "reveal"


def test_s9_6_forced_win_on_a_shown_card_with_peng_and_on_wei_hu():
    """§9.6 on a shown card (the winner also holding a 碰) and on his own 偎 (偎胡)."""
    # a shown s6: seat 3 wins on it and holds no other option; the dealer's 碰 stays optional
    h = _last_card_hand(17, WINS_ON_S6, "s7 s8", forced_win=True)
    assert wires(h.legal_actions(3)) == [HU]
    assert h.pending[0] == ["pass", "peng"] and h.pending[1] == ["chi", "pass"]
    wei_wins = "b1 b1 b1 b3 b3 b3 s1 s2 s3 s7 s8 s9 b4 b5 b6 b8 b9 b10 s6 s6"
    w = _last_card_hand(17, "", wei_wins, dealer="", forced_win=True)
    assert w.claim.source == "self" and wires(w.legal_actions(1)) == [HU]
    # where several must win on one card, §5.3's priority picks the winner



# ---- §9.6 抽牌 (remove_cards) ---------------------------------------------------------------------

def test_s9_6_remove_cards_is_for_2_players_and_20_cards():
    """§9.6: `remove_cards` is "(2 players only): 0 (default) or 20"."""
    for preset, players in (("luzhou", 3), ("luzhou", 4), ("chenzhou", 3), ("chenzhou", 4), ("full", 3)):
        with pytest.raises(RuleError, match="^remove_cards: .*2 players"):
            resolve_ruleset(preset, {"remove_cards": 20}, players=players)
    for bad in (10, 19, 40, -20):
        with pytest.raises(RuleError, match="^remove_cards:"):
            resolve_ruleset("luzhou", {"remove_cards": bad}, players=2)
    assert resolve_ruleset("chenzhou", {"remove_cards": 20}, players=2).remove_cards == 20


def test_s9_6_a_2_player_hand_with_remove_cards_runs_out_after_19_draws():
    """§9.6: "the last 20 cards of the deck order are set aside face down before the deal ... they
    are never drawn, so the stock holds 19 cards instead of 39"."""
    record = json.loads((RECORDS / "luzhou_2p_remove_cards_huang.json").read_text())
    h = replay(record)
    deck = deck_from_seed(bytes.fromhex(record["seed"]))
    assert h.set_aside == deck[60:] and h.stock == deck[41:60] and len(h.stock) == 19
    draws = [parse_card(e.to_wire()["card"]) for e in h.events if e.type == "draw"]
    assert len(draws) == 19 and draws == deck[41:60]  # the whole stock, in order, and nothing else
    assert h.result == {"winner": None, "draw": True} and h.events[-1].type == "huang"
    assert build_view(h, 0)["stock"] == 0 and build_view(h, 0)["set_aside"] == 20


def test_s9_6_remove_cards_nobody_sees_them_until_the_seed_is_revealed():
    """§9.6: "nobody sees them ... They are part of the deck the seed re-derives (§11.7), so a replay
    shows them when the seed is revealed"."""
    rs = resolve_ruleset("chenzhou", {"remove_cards": 20}, players=2)
    seed = hand_seed("aside", 0)
    h = Hand(rs, 0, seed)
    aside = [card_name(c) for c in deck_from_seed(seed)[60:]]
    ev = next(e for e in h.events if e.type == "set_aside")
    assert ev.to_wire()["cards"] == aside and ev.to_wire()["count"] == 20
    for viewer in (0, 1, None):
        assert ev.for_viewer(viewer) == {"seq": ev.viewer_seq(viewer), "type": "set_aside", "count": 20}
        view = build_view(h, viewer)
        assert view["set_aside"] == 20 and "set_aside_cards" not in view and "stock_cards" not in view
    assert build_view(h, AUDIT)["set_aside_cards"] == aside
    assert record_of(h)["events"][1]["cards"] == aside  # the stored (audit) log keeps them
    assert h.card_locations()["set_aside"] == deck_from_seed(seed)[60:]
    assert check(h) == []


def test_s9_6_options_simulate_with_invariants():
    """§9.6, §8.6, §3.8: seeded bot hands with every option on, invariants after every action."""
    for options in ({"escape_penalty": True, "forced_win": True, "qi_hu": 18, "score_cap": 3},
                    {"remove_cards": 20, "escape_penalty": True}, {"bottom_shown": True, "forced_win": True}):
        out = simulate("all", hands=40, seed="room-options", bots="greedy", options=options)
        assert out["invalid"] == 0, out["failures"]
        assert out["hands"] == 40
    with pytest.raises(ValueError, match="no preset"):
        simulate("full", hands=1, options={"remove_cards": 20})


def test_s9_6_replay_trace_shows_the_set_aside_cards_to_the_audit_only(tmp_path):
    """§9.6 with ENGINE_CLI.md "replay --trace [--viewer SEAT]": the audit trace lists the set-aside
    cards, a seat's trace only their count."""
    import io

    from apps.engine.cli.main import main

    path = RECORDS / "chenzhou_2p_remove_cards_win.json"
    lines = {}
    for viewer in (None, "0", "spectator"):
        out = io.StringIO()
        assert main(["replay", str(path), "--trace", *(["--viewer", viewer] if viewer else [])], out=out) == 0
        lines[viewer] = [json.loads(x) for x in out.getvalue().splitlines()]
    aside = next(x for x in lines[None] if x.get("type") == "set_aside")
    assert len(aside["cards"]) == 20 and aside["count"] == 20
    for viewer in ("0", "spectator"):
        mine = next(x for x in lines[viewer] if x.get("type") == "set_aside")
        assert mine == {"seq": mine["seq"], "type": "set_aside", "count": 20}


def test_s8_6_bots_and_time_outs_never_escape():
    """§8.6: leaving is a player's choice ("a lost connection is never an escape"): no bot level
    (practice seats, 托管) and no time-out picks ``escape``, though it is legal for every active seat."""
    from apps.engine.bots.choose import bot_choose
    from apps.engine.bots.search import Budget

    budget = Budget(worlds=2, cpu_ms=None, wall_ms=None)
    for kind in ("random", "greedy", "easy", "normal", "hard"):
        rs = resolve_ruleset("luzhou", {"escape_penalty": True}, players=4)
        h = Hand(rs, 1, hand_seed(f"no-escape-{kind}", 0))
        rng = random.Random(kind)
        steps = 0
        while not h.finished and steps < (12 if kind == "hard" else 400):
            seat = h.to_act()[0]
            assert (ESCAPE in wires(h.legal_actions(seat))) == (h.phase == "discard")  # none in a claim window
            assert h.default_action(seat).type != "escape"
            action = bot_choose(h, seat, kind, rng, budget=budget)
            assert action.type != "escape" and action in h.legal_actions(seat)
            h.apply(seat, action)
            steps += 1
        assert "escape" not in (h.result or {})
