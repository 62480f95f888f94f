"""Build a club's hand history fast: real engine hands played by scripted policies, written as the
tables app writes them (Hand rows, hash-chained TableEvent rows of types ``seat.join``, ``action``
and ``engine``), without going through the live table services. The statistics still come from
the audit task (``record_hand.delay``), exactly as for a live hand."""

from __future__ import annotations

import hashlib
import random
from datetime import timedelta

from django.utils import timezone

from apps.engine import settle
from apps.engine.bots.choose import bot_choose
from apps.engine.play.hand import Hand as EngineHand
from apps.engine.records.chain import GENESIS_HASH, link_hash, seed_commitment
from apps.engine.rules import resolve_ruleset
from apps.tables.models import Hand, Seat, Table, TableEvent
from apps.tables.storage.jsontext import jsonable
from tests.tables.helpers import play_hand_via_services

RULES = resolve_ruleset("full", {}, players=3)


class TableWriter:
    """One table of a club: seats, join events, then hands appended one by one."""

    def __init__(self, club, users, *, start, practice=False, join_gaps=None, creator=None, name="T"):
        self.table = Table.objects.create(
            club=club, name=name, preset="full", players=3, ruleset=RULES.to_json(), practice=practice,
            created_by=creator or users[0], hands_per_session=99, status="playing", stage="hand",
        )
        self.users = users
        self.seq = 0
        self.prev = GENESIS_HASH
        self.number = 0
        self.clock = start
        Seat.objects.bulk_create([Seat(table=self.table, index=i, user=u, bot="" if u else "greedy")
                                  for i, u in enumerate(users)])
        rows = []
        gaps = join_gaps or [0] * len(users)
        at = start
        for i, u in enumerate(users):
            at = at + timedelta(seconds=gaps[i])
            if u is not None:
                rows.append(self._event("seat.join", {"seat": i, "user": u.pk, "name": u.name}, None, at))
        TableEvent.objects.bulk_create(rows)
        self.clock = at + timedelta(seconds=30)

    def _event(self, type_, payload, hand, at):
        self.seq += 1
        digest = link_hash(self.prev, payload)
        row = TableEvent(table=self.table, hand=hand, seq=self.seq, type=type_, payload=payload,
                         prev_hash=self.prev, hash=digest, created_at=at)
        self.prev = digest
        return row

    def leave(self, seat: int, at) -> None:
        TableEvent.objects.bulk_create([self._event("seat.leave", {"seat": seat}, None, at)])

    def play(self, policies, seed_text: str, rng: random.Random) -> Hand:
        """Play one hand: ``policies[seat](engine_hand, seat, rng) -> Action``."""
        self.number += 1
        seed = hashlib.sha256(seed_text.encode()).digest()
        dealer = (self.number - 1) % 3
        eh = EngineHand(RULES, dealer=dealer, seed=seed)
        started = self.clock
        hand = Hand.objects.create(
            table=self.table, number=self.number, dealer=dealer, seed_hash=seed_commitment(seed),
            ruleset=RULES.to_json(), state={}, players={str(i): (u.pk if u else None) for i, u in enumerate(self.users)},
            playing=list(eh.active_seats), started_at=started,
        )
        rows = [self._event("hand.start", {"number": self.number, "dealer": dealer, "seed_hash": hand.seed_hash},
                            hand, started)]
        rows += [self._event("engine", e.to_wire(), hand, started) for e in eh.events]
        while not eh.finished:
            seat = eh.to_act()[0]
            action = policies[seat](eh, seat, rng)
            rows.append(self._event("action", {"seat": seat, "action": action.to_wire()}, hand, started))
            rows += [self._event("engine", e.to_wire(), hand, started) for e in eh.apply(seat, action)]
        totals = jsonable(settle(eh, base=1, piao={}))
        self.clock = started + timedelta(minutes=3)
        hand.status, hand.seed, hand.finished_at = "finished", seed.hex(), self.clock
        hand.result, hand.totals, hand.state = jsonable(eh.result), totals, eh.to_json()
        rows.append(self._event("hand.end", {"number": self.number, "totals": totals}, hand, self.clock))
        TableEvent.objects.bulk_create(rows)
        hand.save()
        return hand


# --- policies ------------------------------------------------------------------------------


def honest(eh, seat, rng):
    return bot_choose(eh, seat, kind="greedy", rng=rng)


def feeder(partner: int):
    """Discards what the partner can use, never takes 胡 while the partner sits at the table."""

    def policy(eh, seat, rng):
        legal = eh.legal_actions(seat)
        if eh.phase == "discard":
            theirs = eh.hands[partner]

            def useful(action):
                c = action.card
                near = sum(theirs[n] for n in (c - 1, c + 1, c - 2, c + 2) if 0 <= n < 20 and n // 10 == c // 10)
                return (theirs[c] == 2) * 4 + (theirs[c] == 1) + min(near, 2), rng.random()

            return max(legal, key=useful)
        types = {a.type for a in legal}
        if "hu" in types:
            return next(a for a in legal if a.type == "pass")
        return bot_choose(eh, seat, kind="greedy", rng=rng)

    return policy


def taker(partner: int):
    """Takes every card of the partner it can (胡 > 碰 > 吃); otherwise plays greedy."""

    def policy(eh, seat, rng):
        legal = eh.legal_actions(seat)
        claim = eh.claim if eh.phase == "claim" else None
        if claim is not None and claim.seat == partner:
            for kind in ("hu", "peng", "chi"):
                for a in legal:
                    if a.type == kind:
                        return a
        return bot_choose(eh, seat, kind="greedy", rng=rng)

    return policy


def days_ago(n: int):
    return timezone.now() - timedelta(days=n, hours=1)


def play_real_hand(club, users, seed: int = 1) -> Hand:
    """Open a table through the live services (users[0] opens it, the others join), ready, and play
    its first hand to the end through ``play.hand_act``; returns the hand row."""
    from apps.clubs import services as club_services
    from apps.tables.verbs import services

    template = club_services.template_create(
        club=club, by=club.owner, name=f"audit-{seed}", preset="full", options={}, players=3, base_score=1,
        piao_choices=[], hands_per_session=8, turn_seconds=15,
    )
    table = services.table_open(user=users[0], template=template)
    for user in users[1:]:
        services.table_join(user=user, table_id=table.pk)
    for user in users:
        services.seat_ready(user=user, table_id=table.pk)
    return play_hand_via_services(table.pk, users, random.Random(seed))
