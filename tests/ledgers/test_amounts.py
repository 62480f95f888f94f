"""The ledger posts what the hand froze (issue #13): ``Hand.totals``, ``Hand.players`` and
``Hand.playing``, nothing it works out again (RULES.md §9.3–9.4).

Real engine hands over every piao mode, discard wins with ``pao_pays`` each/all, 4-player sit_out
(every dealer) and 2 players: the posted score and piao entries per seat are the frozen totals; a
hand whose frozen totals differ from what a replay would give is posted as frozen (the hand
verification, not the ledger, compares the two); the seats that play are the engine's one rule.
"""

from __future__ import annotations

import hashlib

import pytest

from apps.engine import Hand
from apps.engine.rules import resolve_ruleset
from apps.ledgers import services
from apps.ledgers.models import Entry, EntryKind

# (preset, players, options, piao choices)
CASES = [
    ("full", 3, {}, {}),
    ("full", 3, {"piao": True, "piao_mode": "both"}, {0: 1, 1: 2, 2: 3}),
    ("full", 3, {"piao": True, "piao_mode": "loser"}, {0: 5, 1: 0, 2: 1}),
    ("full", 3, {"discard_win": True, "pao_pays": "all", "piao": True}, {0: 1, 1: 0, 2: 2}),
    ("luzhou", 4, {"piao": True}, {0: 1, 1: 1, 2: 2, 3: 3}),
    ("chenzhou", 3, {"pao_pays": "all"}, {0: 1, 1: 2, 2: 3}),
    ("chenzhou", 2, {}, {}),
]


def _posted(hand) -> dict[tuple[int, str], int]:
    out: dict[tuple[int, str], int] = {}
    for seat, kind, amount in Entry.objects.filter(transaction__idempotency_key=f"hand:{hand.pk}") \
            .exclude(kind=EntryKind.FEE).values_list("seat", "kind", "amount"):
        out[(seat, kind)] = out.get((seat, kind), 0) + amount
    return out


@pytest.mark.django_db
@pytest.mark.parametrize("preset,players,options,piao", CASES)
def test_the_posted_entries_are_the_hands_frozen_totals(make_finished_hand, preset, players, options, piao):
    hand = make_finished_hand(preset=preset, players=players, options=options, piao=piao, base=2)
    assert services.settle_hand(hand_id=hand.pk).status == "posted"
    want = {(int(seat), kind): int(amount) for kind in ("score", "piao")
            for seat, amount in hand.totals[kind].items() if amount}
    want = {(seat, {"score": EntryKind.SCORE, "piao": EntryKind.PIAO}[kind]): v for (seat, kind), v in want.items()}
    assert _posted(hand) == want
    assert sum(want.values()) == 0


@pytest.mark.django_db
def test_frozen_totals_are_posted_as_they_are(make_finished_hand):
    """The ledger never re-derives the amounts: what the hand froze is what is posted."""
    hand = make_finished_hand(preset="full", players=3)
    winner = hand.result["winner"]
    losers = [s for s in range(3) if s != winner]
    hand.totals = {"score": {str(winner): 10, str(losers[0]): -4, str(losers[1]): -6},
                   "piao": {"0": 0, "1": 0, "2": 0},
                   "total": {str(winner): 10, str(losers[0]): -4, str(losers[1]): -6}}
    hand.save(update_fields=["totals"])
    services.settle_hand(hand_id=hand.pk)
    assert _posted(hand) == {(winner, EntryKind.SCORE): 10, (losers[0], EntryKind.SCORE): -4,
                             (losers[1], EntryKind.SCORE): -6}


@pytest.mark.django_db
def test_a_hand_without_frozen_totals_is_refused_not_guessed(make_finished_hand):
    hand = make_finished_hand(preset="full", players=3)
    hand.totals = None
    hand.save(update_fields=["totals"])
    with pytest.raises(ValueError, match="no frozen totals"):
        services.settle_hand(hand_id=hand.pk)
    assert not Entry.objects.filter(transaction__idempotency_key=f"hand:{hand.pk}").exists()


@pytest.mark.parametrize("players,mode", [(3, "sit_out"), (4, "sit_out"), (4, "deal_all"), (2, "sit_out")])
def test_the_seats_that_play_are_the_engines_one_rule(players, mode):
    """RULES.md §2: RuleSet.active_seats is what the engine deals to (and what tables freezes)."""
    preset = "luzhou" if players == 4 else "full" if players == 3 else "chenzhou"
    rs = resolve_ruleset(preset, {"four_player_mode": mode} if players == 4 else {}, players=players)
    for dealer in range(players):
        seed = hashlib.sha256(f"active-{players}-{mode}-{dealer}".encode()).digest()
        hand = Hand(rs, dealer=dealer, seed=seed)
        assert rs.active_seats(dealer) == list(hand.active_seats)
        if mode == "sit_out" and players == 4:
            assert (dealer + 2) % 4 not in rs.active_seats(dealer)
