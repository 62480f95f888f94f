"""Property tests (hypothesis): any seed, any sequence of legal actions.

After every action: the 80 cards are conserved with none in two places, the §5.6 count identity
holds, and no redacted view or event shows a seat a card it may not see. At the point where play
stops, ``Hand.from_json(hand.to_json())`` behaves identically (same legal actions, same events
after the same next action).
"""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from apps.engine.cards import card_name, cards_of
from apps.engine.cli.simulate import configurations
from apps.engine.play.events import AUDIT
from apps.engine.play.hand import Hand
from apps.engine.play.invariants import check, check_counts_fast
from apps.engine.play.observer import build_view
from apps.engine.shuffle import deck_from_seed

# Every preset and player count, then the room options of RULES.md §3.8, §8.6, §9.6 (bottom_shown is
# luzhou's 4-player default; remove_cards applies to the 2-player configurations).
CONFIGS = (
    configurations("all")
    + configurations("all", options={"escape_penalty": True, "forced_win": True, "qi_hu": 15, "score_cap": 4})
    + configurations("all", options={"remove_cards": 20, "escape_penalty": True})
    + configurations("luzhou", 4, options={"bottom_shown": False})
)
MAX_STEPS = 400


def _names(cards) -> list[str]:
    return [card_name(c) for c in cards]


def _expected_group(hand: Hand, owner: int, viewer: int, kind: str, cards: tuple[int, ...]) -> dict:
    """A laid group as ``viewer`` may see it (RULES.md §4.1 visibility), computed independently."""
    names = _names(sorted(cards))
    if viewer == owner or hand.finished or kind in ("pao", "peng", "chi"):
        return {"kind": kind, "cards": names}
    if kind == "wei" and hand.rs.wei_shown == "none":
        return {"kind": kind, "cards": [None] * len(names)}
    return {"kind": kind, "cards": names[:1] + [None] * (len(names) - 1)}  # 提, 臭偎, 偎 "one": 1 up


# Where a seat's view may hold cards: everything else (the stock above all) is hidden.
_CARD_KEYS = {"hands", "groups", "discards", "legal_actions", "chou", "table", "reveal", "result", "bottom_card"}
_CARD_NAMES = {card_name(c) for c in range(20)}


def _card_lists(obj, path=()):
    """(path, list) for every list in a JSON value that holds a card name."""
    if isinstance(obj, dict):
        for key, value in obj.items():
            yield from _card_lists(value, (*path, key))
    elif isinstance(obj, list):
        if any(isinstance(x, str) and x in _CARD_NAMES for x in obj):
            yield path, obj
        for i, value in enumerate(obj):
            yield from _card_lists(value, (*path, i))
    elif isinstance(obj, str) and obj in _CARD_NAMES and path and path[0] not in _CARD_KEYS:
        yield path, [obj]


def _view_leaks(hand: Hand, seat: int) -> list[str]:
    view = json.loads(json.dumps(build_view(hand, seat)))
    problems = []
    stock = _names(hand.stock[hand._stock_pos :])
    for path, value in _card_lists(view):
        if path[0] not in _CARD_KEYS:
            problems.append(f"cards under {path} in the view of {seat}")
        if len(stock) > 1 and value == stock:
            problems.append(f"the view of {seat} shows the stock under {path}")
    for other in range(hand.players):
        got = view["hands"][str(other)]
        if other == seat or hand.finished:
            if got != _names(cards_of(hand.hands[other])):
                problems.append(f"hand of {other} wrong for {seat}")
        elif got is not None:
            problems.append(f"seat {seat} sees the hand of {other}")
        want = [_expected_group(hand, other, seat, g.kind, g.cards) for g in hand.groups[other]]
        if view["groups"][str(other)] != want:
            problems.append(f"groups of {other} as seen by {seat}: {view['groups'][str(other)]} != {want}")
    claim = hand.claim if hand.phase == "claim" else None
    if claim is not None and view["table"] is not None and view["table"]["card"] is not None:
        if claim.source == "self" and claim.seat != seat and not hand.finished:
            problems.append(f"seat {seat} sees the card of another seat's 偎/提 decision")
    if not hand.finished and view["result"] is not None:
        problems.append("a result before the end")
    return problems


def _event_leaks(hand: Hand, events, viewers: range) -> list[str]:
    problems = []
    for ev in events:
        full = ev.to_wire()
        for seat in viewers:
            red = ev.for_viewer(seat)
            if red is None or ev.type == "pass":
                if (red is None) != (ev.seat != seat):
                    problems.append(f"pass of {ev.seat} as seen by {seat}: {red}")
            elif ev.type == "deal":
                for owner, cards in red["hands"].items():
                    want = full["hands"][owner] if owner == seat else [None] * len(full["hands"][owner])
                    if cards != want:
                        problems.append(f"deal as seen by {seat}: hand of {owner} is {cards}")
            elif ev.type == "draw" and ev.seat != seat:
                if red["card"] is not None:
                    problems.append(f"seat {seat} sees the draw of {ev.seat}")
            elif ev.type == "wei" and ev.seat != seat and not full["chou"] and hand.rs.wei_shown == "none":
                if red["card"] is not None:
                    problems.append(f"seat {seat} sees the hidden 偎 of {ev.seat}")
            elif ev.type == "set_aside":  # §9.6: the count only
                if "cards" in red or red["count"] != full["count"]:
                    problems.append(f"seat {seat} sees the set-aside cards: {red}")
            elif {**red, "seq": None} != {**full, "seq": None}:  # (seq: the viewer's own numbering)
                problems.append(f"public event {full} redacted for {seat} as {red}")
    return problems


def _play(data, hand: Hand, stop: int) -> None:
    seats = range(hand.players)
    problems = check_counts_fast(hand) + _event_leaks(hand, hand.events, seats)
    steps = 0
    while not hand.finished and steps < stop:
        assert not problems, problems
        to_act = hand.to_act()
        assert to_act, "not finished but nobody to act"
        seat = to_act[data.draw(st.integers(0, len(to_act) - 1), label="seat")]
        legal = hand.legal_actions(seat)
        action = legal[data.draw(st.integers(0, len(legal) - 1), label="action")]
        new = hand.apply(seat, action)
        steps += 1
        problems = check_counts_fast(hand) + _event_leaks(hand, new, seats)
        for viewer in hand.active_seats:
            problems += _view_leaks(hand, viewer)
    assert not problems, problems


def _hidden_positions(hand: Hand) -> list[int]:
    """Deck positions of the cards no live viewer has seen: the undrawn stock (with bottom_shown,
    not its shown last card nor the red cards moved to the top, §3.8) and the set-aside cards."""
    n = len(hand.deck)
    end = n - hand.rs.remove_cards  # the stock ends here in deck order; the set-aside cards follow
    left = hand.stock_left()
    if hand.rs.bottom_shown:
        moves = sum(1 for e in hand.events if e.type == "bottom_to_top")
        stock = range(max(end - len(hand.stock), end - moves - left), end - moves - 1)
    else:
        stock = range(end - left, end)
    return [*stock, *range(end, n)]


def _stock_order_is_invisible(hand: Hand, seed: bytes) -> None:
    """The same play on a deck whose hidden cards (the undrawn stock, the set-aside cards) are in
    another order looks the same to every seat."""
    positions = _hidden_positions(hand)
    if len(positions) < 2:
        return
    deck = list(hand.deck)
    rest = [deck[i] for i in positions]
    random.Random(seed).shuffle(rest)
    if rest == [deck[i] for i in positions]:
        return
    other_deck = list(deck)
    for i, c in zip(positions, rest, strict=True):
        other_deck[i] = c
    other = Hand(hand.rs, dealer=hand.dealer, deck=other_deck)
    for seat, action in hand.actions:
        other.apply(seat, action)
    for viewer in [*hand.active_seats, None]:
        assert build_view(other, viewer) == build_view(hand, viewer), f"the view of {viewer} depends on the stock order"
        assert [e.for_viewer(viewer) for e in other.events] == [e.for_viewer(viewer) for e in hand.events]


@settings(max_examples=60, deadline=None)
@given(
    data=st.data(),
    seed=st.binary(min_size=32, max_size=32),
    config=st.sampled_from(CONFIGS),
    dealer=st.integers(0, 3),
    stop=st.integers(0, MAX_STEPS),
)
def test_any_legal_play_keeps_the_invariants(data, seed: bytes, config, dealer: int, stop: int) -> None:
    hand = Hand(config, dealer=dealer % config.players, seed=seed)
    _play(data, hand, stop)
    assert check(hand, roundtrip=True) == []
    copy = Hand.from_json(json.loads(json.dumps(hand.to_json())))
    assert build_view(copy, AUDIT) == build_view(hand, AUDIT)
    assert copy.to_act() == hand.to_act()
    for seat in range(hand.players):
        assert copy.legal_actions(seat) == hand.legal_actions(seat)
    _stock_order_is_invisible(hand, seed)
    if not hand.finished:
        seat = hand.to_act()[0]
        action = hand.legal_actions(seat)[data.draw(st.integers(0, 50), label="next") % len(hand.legal_actions(seat))]
        assert [e.to_wire() for e in copy.apply(seat, action)] == [e.to_wire() for e in hand.apply(seat, action)]
        assert build_view(copy, AUDIT) == build_view(hand, AUDIT)


@settings(max_examples=60, deadline=None)
@given(seed=st.binary(min_size=32, max_size=32), config=st.sampled_from(CONFIGS), shuffle_seed=st.integers())
def test_the_deal_a_seat_sees_depends_only_on_its_own_cards(seed: bytes, config, shuffle_seed: int) -> None:
    """Two deals that differ only in cards hidden from a seat give it identical deal and reveal events."""
    deck = deck_from_seed(seed)
    block = 14 if config.deal_all else 20
    dealer = seed[0] % config.players
    hand = Hand(config, dealer=dealer, deck=list(deck))
    order = hand.order_from(dealer)
    end = len(deck) - config.remove_cards
    shown_bottom = set()
    if config.bottom_shown:  # §3.8: the shown last card and the red cards moved to the top are public
        moves = sum(1 for e in hand.events if e.type == "bottom_to_top")
        shown_bottom = set(range(end - moves - 1, end))
    for position, seat in enumerate(order):
        mine = range(position * block, (position + 1) * block)
        reveal_at = len(order) * block  # public, or (bottom_shown) the dealer's own 21st card
        hidden = [i for i in range(len(deck)) if i not in mine and i != reveal_at and i not in shown_bottom]
        cards = [deck[i] for i in hidden]
        random.Random(shuffle_seed).shuffle(cards)
        other_deck = list(deck)
        for i, c in zip(hidden, cards, strict=True):
            other_deck[i] = c
        other = Hand(config, dealer=dealer, deck=other_deck)
        # (Later events may differ: a natural win, a reveal win or opening 提 elsewhere are public.)
        for a, b in zip(hand.events[:2], other.events[:2], strict=True):
            assert a.for_viewer(seat) == b.for_viewer(seat)
