"""RULES.md §5.3: Claim resolution."""

from __future__ import annotations

import copy
import json
import random

import pytest

from apps.engine.bots.choose import bot_choose
from apps.engine.cli.simulate import configurations, hand_seed
from apps.engine.play.events import AUDIT
from apps.engine.play.hand import Action, Hand
from apps.engine.play.observer import build_view, build_views
from apps.engine.rules import resolve_ruleset
from tests.engine.hand_support import act, force_wins, hand_from, pass_all, types_of
from tests.engine.rules.support import S3

PASS_ACTION = Action("pass")


def _configs():
    out = []
    for rs in configurations("all"):
        if rs.players == 4:
            for mode in ("sit_out", "deal_all"):
                out.append(resolve_ruleset(rs.preset, {"four_player_mode": mode}, players=4))
        else:
            out.append(rs)
    # The room options (RULES.md §3.8 is luzhou's 4-player sit_out default above; §8.6, §9.6): the
    # new actions and events keep §5.3 "What the others learn".
    out += configurations("all", options={"escape_penalty": True, "forced_win": True, "qi_hu": 15, "score_cap": 4})
    out += configurations("all", options={"remove_cards": 20, "escape_penalty": True})
    return out


CONFIGS = _configs()


IDS = [
    f"{rs.preset}-{rs.players}{'-' + rs.four_player_mode if rs.players == 4 else ''}"
    f"{'-bottom' if rs.bottom_shown else ''}{'-escape' if rs.escape_penalty else ''}"
    f"{'-forced' if rs.forced_win else ''}{'-remove' if rs.remove_cards else ''}"
    for rs in CONFIGS
]


def _dump(value) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _viewers(hand: Hand) -> list:
    return [*range(hand.players), None]


def _message(hand: Hand, new, viewer) -> tuple[str, str]:
    """What ``viewer`` is given after a step: his copies of the step's events, and his view."""
    events = [w for ev in new if (w := ev.for_viewer(viewer)) is not None]
    return _dump(events), _dump(build_view(hand, viewer))


def _without_option(hand: Hand, seat: int) -> Hand:
    """The same hand, except that ``seat`` holds no option on the card in question."""
    other = copy.deepcopy(hand)
    del other.claim.options[seat]
    return other


def _decide_rest(hand: Hand, rng_seed: bytes, viewers: list, *, skip: int | None) -> list:
    """The claimants but ``skip`` decide one after the other until the claim resolves (the same
    choices in both hands: the same rng, the same options); per step ``(seat, {viewer: message})``."""
    rng = random.Random(rng_seed)
    steps = []
    claim = hand.claim
    while hand.claim is claim and not hand.finished:
        seat = next(x for x in hand.to_act() if x != skip)
        legal = hand.legal_actions(seat)
        new = hand.apply(seat, legal[rng.randrange(len(legal))])
        steps.append((seat, {v: _message(hand, new, v) for v in viewers}))
    return steps


def _compare_window(hand: Hand, s: int, rng_seed: bytes) -> tuple[int, int]:
    """Hand A: claimant ``s`` passes first, then the others decide; hand B: ``s`` held no option,
    the others decide alike. Returns (viewers compared, of them with the whole resolving message)."""
    a, b = copy.deepcopy(hand), _without_option(hand, s)
    others = [v for v in _viewers(hand) if v != s]
    before = {v: _dump(build_view(a, v)) for v in others}
    claim = a.claim
    new = a.apply(s, PASS_ACTION)
    if a.claim is not claim or not b.to_act():
        return 0, 0  # s was the one the window waited for: without his option it never opened
    for v in others:  # his pass, while the window stays open, tells the others nothing
        assert _message(a, new, v) == ("[]", before[v]), (s, v)
    steps_a = _decide_rest(a, rng_seed, others, skip=s)
    steps_b = _decide_rest(b, rng_seed, others, skip=None)
    assert [seat for seat, _ in steps_a] == [seat for seat, _ in steps_b]
    same_after = all(getattr(a, name)[s] == getattr(b, name)[s] for name in ("_chou", "_chou_peng", "_chou_hu"))
    whole = 0
    for v in others:
        for (_, msgs_a), (_, msgs_b) in zip(steps_a[:-1], steps_b[:-1], strict=True):
            assert msgs_a[v] == msgs_b[v], (s, v)  # (the window still open: nothing new, or his own)
        (events_a, view_a), (events_b, view_b) = steps_a[-1][1][v], steps_b[-1][1][v]
        first_a, first_b = json.loads(events_a), json.loads(events_b)
        assert first_a, "the outcome of a claim is told to everyone"
        assert _dump(first_a[:1]) == _dump(first_b[:1]), (s, v)  # up to the next public event
        if same_after:  # nothing of s differs any more: the two hands are one
            assert (events_a, view_a) == (events_b, view_b), (s, v)
            whole += 1
    return len(others), whole


def test_s5_3_hu_in_seat_order_from_the_drawer(monkeypatch):
    force_wins(monkeypatch, {0: {"other_draw"}, 2: {"other_draw"}})
    h = hand_from("full", ["s9", "", "s3"], "s10", "s3")
    act(h, 0, {"type": "discard", "card": "s9"})
    pass_all(h)
    # Seat 1 drew s3; seats 2 then 0 may 胡 on it: seat 2 comes first.
    assert h.pending[0] == ["hu", "pass"] and "hu" in h.pending[2]
    act(h, 0, {"type": "hu"})
    assert not h.finished  # seat 2 could still outrank
    act(h, 2, {"type": "hu"})
    assert h.result["winner"] == 2 and h.result["win_by"] == "other_draw"


def test_s5_3_po_pao_hu_beats_a_forced_pao(monkeypatch):
    force_wins(monkeypatch, {0: {"other_draw"}})
    h = hand_from("full", ["s9", "", "s3 s3 s3"], "s10", "s3")
    act(h, 0, {"type": "discard", "card": "s9"})
    for s in h.to_act():
        act(h, s, {"type": "pass"})
    assert h.pending == {0: ["hu", "pass"]}  # 跑 waits for the 胡 decision
    events = act(h, 0, {"type": "hu"})
    assert types_of(events) == ["hu"] and h.result["winner"] == 0


def test_s5_3_peng_executes_at_once_over_an_undecided_chi():
    h = hand_from("full", ["s3", "s4 s5", "s3 s3"], "s9")
    act(h, 0, {"type": "discard", "card": "s3"})
    events = act(h, 2, {"type": "peng"})
    assert types_of(events) == ["peng"]
    assert S3 not in h.chou(1)  # taken by a claim that outranks his 吃
    assert h.to_act() == [2]


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


@pytest.mark.parametrize("rs", CONFIGS, ids=IDS)
def test_s5_3_every_viewer_numbering_is_contiguous(rs):
    """§5.3: each viewer's events are numbered 1..n with no gap; his view's seq is his last number."""
    hands = 150
    passes_hidden = 0
    for i in range(hands):
        seed = hand_seed(f"numbering-{rs.preset}-{rs.players}-{rs.four_player_mode}", i)
        rng = random.Random(seed)
        hand = Hand(rs, dealer=rng.randrange(rs.players), seed=seed)
        viewers = _viewers(hand)
        last = dict.fromkeys(viewers, 0)
        new = list(hand.events)
        while True:
            views = build_views(hand, viewers)
            for viewer, view in zip(viewers, views, strict=True):
                got = [w["seq"] for ev in new if (w := ev.for_viewer(viewer)) is not None]
                assert got == list(range(last[viewer] + 1, last[viewer] + 1 + len(got))), (seed.hex(), viewer)
                last[viewer] += len(got)
                assert view["seq"] == last[viewer], (seed.hex(), viewer)
            if hand.finished:
                break
            seat = hand.to_act()[rng.randrange(len(hand.to_act()))]
            new = hand.apply(seat, bot_choose(hand, seat, kind="random" if i % 2 else "greedy", rng=rng))
        assert build_view(hand, AUDIT)["seq"] == len(hand.events)
        passes_hidden += sum(1 for ev in hand.events if ev.type == "pass")
    assert passes_hidden > 0  # the hands did hide passes from the other viewers


@pytest.mark.parametrize("rs", CONFIGS, ids=IDS)
def test_s5_3_a_declined_option_is_invisible_to_the_others(rs):
    """§5.3: whether a seat held an option and declined it, or held none, the others cannot tell."""
    hands = 60
    compared = whole = 0
    for i in range(hands):
        seed = hand_seed(f"declined-{rs.preset}-{rs.players}-{rs.four_player_mode}", i)
        rng = random.Random(seed)
        hand = Hand(rs, dealer=rng.randrange(rs.players), seed=seed)
        windows = 0
        while not hand.finished:
            claim = hand.claim if hand.phase == "claim" else None
            if claim is not None and not claim.decided and windows < 4:
                windows += 1
                for s in sorted(claim.options):
                    if PASS_ACTION not in claim.options[s]:
                        continue  # forced_win (§9.6): a seat offered 胡 has no option to decline
                    n, w = _compare_window(hand, s, seed + bytes([s, windows]))
                    compared += n
                    whole += w
            seat = hand.to_act()[rng.randrange(len(hand.to_act()))]
            hand.apply(seat, bot_choose(hand, seat, kind="random" if i % 2 else "greedy", rng=rng))
    assert compared > 0 and whole > 0, (compared, whole)  # windows with two claimants were compared
