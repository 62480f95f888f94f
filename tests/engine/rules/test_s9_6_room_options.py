"""RULES.md §9.6: Room options every preset accepts."""

from __future__ import annotations

import json
import random

import pytest

from apps.engine.actions import IllegalAction
from apps.engine.cards import card_name, parse_card
from apps.engine.cli.simulate import hand_seed, simulate
from apps.engine.groups import Group
from apps.engine.play.events import AUDIT
from apps.engine.play.hand import Hand
from apps.engine.play.invariants import check
from apps.engine.play.observer import build_view
from apps.engine.records.replay import record_of, replay
from apps.engine.rules import PRESETS, RuleError, resolve_ruleset
from apps.engine.scoring import can_win, score_win
from apps.engine.scoring.settlement import capped, settle, settle_amounts
from apps.engine.shuffle import deck_from_seed
from tests.engine.hand_support import act, make_deck, wires
from tests.engine.rules.support import RECORDS, WINS_ON_S6, counts_of_text, last_card_hand

HU = {"type": "hu"}


# 16 胡息 in full: 坎 b1 (6) + 坎 b3 (6) + 一二三 (3) + a laid 碰 of s5 (1); the winning card s10.
QI_HAND = counts_of_text("b1 b1 b1 b3 b3 b3 s1 s2 s3 s6 s7 s8 b4 b5 b6 s8 s9")


QI_LAID = [Group("peng", (4, 4, 4))]


S10 = parse_card("s10")


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
    h = last_card_hand(17, WINS_ON_S6, "s7 s8", forced_win=True)
    assert wires(h.legal_actions(3)) == [HU]
    assert h.pending[0] == ["pass", "peng"] and h.pending[1] == ["chi", "pass"]
    wei_wins = "b1 b1 b1 b3 b3 b3 s1 s2 s3 s7 s8 s9 b4 b5 b6 b8 b9 b10 s6 s6"
    w = last_card_hand(17, "", wei_wins, dealer="", forced_win=True)
    assert w.claim.source == "self" and wires(w.legal_actions(1)) == [HU]


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
