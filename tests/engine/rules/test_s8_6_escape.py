"""RULES.md §8.6: 逃跑 (leaving a hand in play).

As each viewer sees it (issue #41): ``escape`` is legal only while no claim
window is open; "What the leaver is told before he confirms" is in his view (``view["escape"] =
{"at_least": n}`` at base 1, exactly when ``escape`` is legal for him), computed from what he sees
(§5.3): the other active players' laid groups, a face-down 偎 whose card he has not seen counting as
the least a 偎 can be, concealed cards 0. Two worlds that differ only in cards a viewer may not see
give him the same view.
"""

from __future__ import annotations

import json
import random

import pytest

from apps.engine.actions import IllegalAction
from apps.engine.cards import parse_card
from apps.engine.cli.simulate import hand_seed
from apps.engine.groups import Group
from apps.engine.play.hand import Hand
from apps.engine.play.invariants import check
from apps.engine.play.observer import build_view
from apps.engine.records.replay import record_of, replay
from apps.engine.rules import PRESETS, resolve_ruleset
from apps.engine.scoring.huxi import current_huxi, group_huxi
from apps.engine.scoring.settlement import escape_amounts, escape_penalty, escape_split, settle
from tests.engine.hand_support import act, make_deck, wires
from tests.engine.rules.support import RECORDS, counts_of_text
from tests.engine.two_worlds import CONFIGS, other_world, resting_states, ruleset

ESCAPE = {"type": "escape"}


def _claim_open(h: Hand) -> bool:
    return h.phase == "claim" and h.claim is not None


def _discard_hand(preset: str) -> Hand:
    """A 3-player hand with 逃跑, at a moment with no claim window (a discard awaited)."""
    rs = ruleset(preset, 3, True)
    for i in range(50):
        h = Hand(rs, 0, hand_seed("escape-view", i))
        if h.phase == "discard":
            return h
    raise AssertionError("no hand opening with a discard")


def _group(kind: str, card: str) -> Group:
    c = parse_card(card)
    return Group(kind, (c,) * (4 if kind in ("ti", "pao") else 3))


# Dealer 0 holds 3 胡息 (one of 一二三 / 二七十 small), seat 1 holds 12 (two 坎 of big cards); seat 2 leaves.
SEAT0 = "s1 s2 s3 s4 s5 s6 s7 s8 s9 s10 b1 b3 b4 b5 b6 b8 b9 s1 s4 s9"


SEAT1 = "b1 b1 b1 b2 b2 b7 b10 s2 s7 s9 b3 b5 b8 b9 s3 s5 s6 s8 b4 b6"


def _escape_hand(preset="full", seat0=SEAT0, seat1=SEAT1, **options) -> Hand:
    rs = resolve_ruleset(preset, {"escape_penalty": True, **options}, players=3)
    return Hand(rs, 0, deck=make_deck([seat0, seat1, ""], "b6"))


@pytest.mark.parametrize(("preset", "players", "escape"), CONFIGS)
def test_s8_6_s5_3_two_worlds_give_every_viewer_the_same_view(preset, players, escape):
    """§5.3 / §8.6: what a viewer is told (his whole view, ``escape`` included) depends on nothing he
    may not see; ``escape`` is legal exactly for the active seats while the hand is in play and "no
    claim window is open", and ``view["escape"]`` is present exactly when it is legal."""
    rs = ruleset(preset, players, escape)
    rng = random.Random(f"{preset}:{players}:{escape}")
    states = differing = 0
    for h, _events in resting_states(rs, f"engine:{preset}:{players}:{escape}", hands=12, every=2):
        states += 1
        for viewer in [*range(players), None]:
            view = build_view(h, viewer)
            legal = ESCAPE in view["legal_actions"]
            if viewer is not None:
                assert legal == (escape and not _claim_open(h) and viewer in h.active_seats)
                assert ("escape" in view) == legal
                if legal:
                    assert view["escape"]["at_least"] <= escape_amounts(h, viewer)["penalty"]  # a lower bound
            else:
                assert "escape" not in view and not legal
            other = other_world(h, viewer, rng)
            if other is None:
                continue
            differing += build_view(other, "audit") != build_view(h, "audit")
            assert build_view(other, viewer) == view, (preset, players, viewer, len(h.actions))
    assert states >= 100 and differing >= states // 2


def test_s8_6_at_least_counts_laid_groups_only_a_face_down_wei_as_a_small_one():
    """§8.6: "each other active player's laid groups scored as in the H rule above, concealed cards
    counting 0 and a face-down 偎 whose card he has not seen counting as a small one (the least it
    can be): at_least = (max(0, floor((H_seen − 12) / 3)) + 8) × base"; a 臭偎 and a 提 show their
    card (§4.1), so they count as seen."""
    h = _discard_hand("full")
    assert h.rs.wei_shown == "none"
    # seat 1: a face-down 偎 of b6 (6; seen by the others as a small one, 3) and a 跑 of b10 (9);
    # seat 2: a 提 of b5 (12, one card up) and a 臭偎 of s4 (3, one card up).
    h.groups[1] = [_group("wei", "b6"), _group("pao", "b10")]
    h.groups[2] = [_group("ti", "b5"), _group("chou_wei", "s4")]
    view0 = build_view(h, 0)
    assert view0["groups"][1][0]["cards"] == [None, None, None] and view0["groups"][2][0]["cards"][0] == "b5"
    assert view0["escape"] == {"at_least": escape_penalty(3 + 9 + 12 + 3)} == {"at_least": 13}
    # the exact price counts the 偎 as it is, and the concealed cards: at least as much
    assert escape_amounts(h, 0)["penalty"] >= escape_penalty(6 + 9 + 12 + 3) == 14
    # seat 1 sees his own 偎, but not seat 0's; seat 0's laid groups count for him, his own do not
    h.groups[0] = [_group("wei", "b9")]
    assert build_view(h, 1)["escape"] == {"at_least": escape_penalty(3 + 12 + 3)} == {"at_least": 10}
    assert build_view(h, 0)["escape"] == {"at_least": 13}  # his own groups never count
    # concealed cards count 0: emptying the others' hands changes nothing
    for s in (1, 2):
        h.hands[s] = [0] * 20
    assert build_view(h, 0)["escape"] == {"at_least": 13}


def test_s8_6_at_least_with_wei_shown_one_and_luzhous_table():
    """§8.6 with §4.1 ``wei_shown = "one"`` (changsha): the 偎's card is seen, so it counts as it is;
    with luzhou's 胡息 table (§10) a face-down 偎 counts the least a 偎 scores there."""
    cs = _discard_hand("changsha")
    assert cs.rs.wei_shown == "one"
    cs.groups[1] = [_group("wei", "b6")]
    assert build_view(cs, 0)["escape"] == {"at_least": escape_penalty(6)}  # 8: under 12
    cs.groups[1] = [_group("wei", "b6")] * 3 + [_group("ti", "b10")]  # 18 + 12 = 30
    assert build_view(cs, 0)["escape"] == {"at_least": escape_penalty(30)} == {"at_least": 14}
    lz = _discard_hand("luzhou")
    least = min(group_huxi(lz.rs, Group("wei", (c, c, c))) for c in range(20))
    lz.groups[1] = [_group("wei", "b10")] * 4
    lz.groups[2] = [_group("wei", "b9")]
    assert build_view(lz, 0)["escape"] == {"at_least": escape_penalty(5 * least)}
    assert build_view(lz, 0)["escape"]["at_least"] < escape_penalty(sum(group_huxi(lz.rs, g) for g in lz.groups[1] + lz.groups[2]))


def test_s8_6_no_escape_and_no_bound_in_a_claim_window_nor_for_a_spectator():
    """§8.6: "legal for any active seat while the hand is in play and no claim window is open";
    the view carries ``escape`` "exactly when escape is legal for that viewer"."""
    rs = ruleset("full", 3, True)
    seen_window = seen_turn = 0
    for h, _ in resting_states(rs, "window", hands=4, every=1):
        for seat in range(3):
            view = build_view(h, seat)
            if _claim_open(h):
                seen_window += 1
                assert ESCAPE not in view["legal_actions"] and "escape" not in view
            else:
                seen_turn += 1
                assert ESCAPE in view["legal_actions"] and view["escape"]["at_least"] >= 8
        assert "escape" not in build_view(h, None) and "escape" not in build_view(h, "audit")
    assert seen_window and seen_turn


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
    assert current_huxi(full, counts_of_text(SEAT0 + " b6"), []) == 3
    assert current_huxi(full, counts_of_text(SEAT1), []) == 12
    # 坎 whole: s1 s1 s1 s2 s3 is a 坎 (3), never 一二三 (3) with two s1 left over
    assert current_huxi(full, counts_of_text("s1 s1 s1 s2 s3"), []) == 3
    # two 一二三 beat one 二七十 when s2 is short: s1 s1 s2 s2 s3 s3 s7 s10 -> 6
    assert current_huxi(full, counts_of_text("s1 s1 s2 s2 s3 s3 s7 s10"), []) == 6
    # laid groups count with the preset's table; changsha's 一二三 scores 0, luzhou's 二七十 6/9
    laid = [Group("pao", (5, 5, 5, 5)), Group("peng", (19, 19, 19))]
    assert current_huxi(full, counts_of_text("b2 b7 b10"), laid) == 6 + 3 + 6
    assert current_huxi(lz, counts_of_text("b2 b7 b10"), laid) == (6 + 3) + 9 + 9
    assert current_huxi(cs, counts_of_text("s1 s2 s3 b1 b2 b3"), []) == 0


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
