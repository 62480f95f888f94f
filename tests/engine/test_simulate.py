"""simulate: seeded bot games across every preset and player count, invariants after every action."""

from __future__ import annotations

import pytest

from apps.engine.cli.simulate import configurations, hand_seed, play_hand, simulate
from apps.engine.play.hand import Hand
from apps.engine.rules import PRESET_PLAYERS
from tests.engine.hand_support import make_deck


def test_configurations_cover_every_preset_and_player_count() -> None:
    got = {(rs.preset, rs.players) for rs in configurations("all")}
    want = {(p, n) for p, counts in PRESET_PLAYERS.items() for n in counts}
    assert got == want
    four = {rs.preset: rs.four_player_mode for rs in configurations("all") if rs.players == 4}
    assert four == {"chenzhou": "deal_all", "luzhou": "sit_out"}


def test_hand_seeds_are_derived_from_the_run_seed() -> None:
    import hashlib

    assert hand_seed(7, 3) == hashlib.sha256(b"7:3").digest()
    assert len(hand_seed("x", 0)) == 32


@pytest.mark.parametrize("bots", ["random", "greedy"])
def test_simulate_all_presets_has_no_invalid_hands(bots: str) -> None:
    result = simulate("all", hands=44, seed="t", bots=bots)
    assert result["invalid"] == 0, result["failures"]
    assert result["hands"] == 44 == result["wins"] + result["draws"]
    assert result["events"] > 44 * 10
    assert set(result["by_preset"]) == set(PRESET_PLAYERS)
    for key in ("hands", "wins", "draws", "invalid", "events", "seconds", "hands_per_second", "by_preset"):
        assert key in result


def test_simulate_is_deterministic() -> None:
    a = simulate("chenzhou", hands=12, seed=5, bots="greedy")
    b = simulate("chenzhou", hands=12, seed=5, bots="greedy")
    for r in (a, b):
        r.pop("seconds")
        r.pop("hands_per_second")
    assert a == b


def test_play_hand_reports_a_crash_with_its_seed(monkeypatch: pytest.MonkeyPatch) -> None:
    import apps.engine.cli.simulate as sim

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    # A fixed deck with quiet hands (no natural win, no win on the reveal): every hand waits for
    # a decision, so the broken bot is asked and the crash is reported with the hand's seed.
    deck = make_deck(["", "", ""], "b5")
    monkeypatch.setattr(sim, "Hand", lambda rules, dealer, seed: Hand(rules, dealer, deck=deck))
    monkeypatch.setattr(sim, "bot_choose", broken)
    out = play_hand(configurations("full")[0], hand_seed(1, 0))
    assert out.hand is not None and not out.hand.finished
    assert out.error and "boom" in out.error
    result = sim.simulate("full", hands=2, seed=1)
    assert result["invalid"] >= 1
    assert result["failures"][0]["seed"] == hand_seed(1, 0).hex()


def test_unknown_preset_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        simulate("nope", hands=1)


def _fresh_hand():
    from apps.engine.play.hand import Hand

    return Hand(configurations("full")[0], dealer=0, seed=bytes(32))


def test_invariants_hold_on_a_fresh_hand() -> None:
    from apps.engine.play.invariants import check

    assert check(_fresh_hand()) == []


def test_invariants_catch_a_lost_card_and_a_duplicate() -> None:
    from apps.engine.play.invariants import check

    hand = _fresh_hand()
    card = next(c for c, n in enumerate(hand.hands[1]) if n)
    hand.hands[1][card] -= 1
    problems = check(hand, roundtrip=False)
    assert any(f"card {card}: 3 copies" in p for p in problems)
    assert any(p.startswith("seat 1 holds 19 cards") for p in problems)  # §5.6: below its count
    hand.hands[1][card] += 2
    assert any(f"card {card}: 5 copies" in p for p in check(hand, roundtrip=False))


def test_invariants_catch_a_bad_group_and_a_broken_round_trip() -> None:
    from apps.engine.groups import Group
    from apps.engine.play.invariants import check

    hand = _fresh_hand()
    hand.groups[2].append(Group("chi", (0, 4, 9)))
    assert any("bad laid group" in p for p in check(hand, roundtrip=False))
    hand = _fresh_hand()
    hand.dealer = 1  # the JSON snapshot now deals differently from what happened
    assert any("round trip" in p for p in check(hand, roundtrip=True))
