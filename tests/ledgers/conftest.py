"""Ledger fixtures: a club with owner/admin/member/other/outsider, accounts, real finished hands."""

from __future__ import annotations

import hashlib
import json
import random
from datetime import timedelta
from functools import lru_cache

import pytest
from django.utils import timezone


@pytest.fixture
def people(make_user, make_club):
    owner, admin, member, other, outsider = (make_user(u) for u in ("owner", "admin", "member", "other", "outsider"))
    club = make_club(name="Club", owner=owner, admins=[admin], members=[member, other])
    return {"club": club, "owner": owner, "admin": admin, "member": member, "other": other, "outsider": outsider}


@pytest.fixture
def accounts(people):
    from apps.ledgers.posting import club_account, member_accounts

    club = people["club"]
    names = ("owner", "admin", "member", "other")
    by_user = member_accounts(club_id=club.pk, user_ids=[people[k].pk for k in names])
    return {"house": club_account(club_id=club.pk), **{k: by_user[people[k].pk] for k in names}}


@lru_cache(maxsize=64)
def engine_state(preset: str = "full", players: int = 3, options: tuple = (), want: str = "win", dealer: int = 0):
    """The to_json() of a finished engine hand played by bots (cached: seeded, deterministic)."""
    from apps.engine.bots.choose import bot_choose
    from apps.engine.play.hand import Hand
    from apps.engine.rules import resolve_ruleset

    rs = resolve_ruleset(preset, dict(options), players=players)
    for i in range(500):
        seed = hashlib.sha256(f"ledgers-{preset}-{players}-{options}-{i}".encode()).digest()
        hand = Hand(rs, dealer=dealer, seed=seed)
        rng = random.Random(i)
        while not hand.finished:
            seat = hand.to_act()[0]
            hand.apply(seat, bot_choose(hand, seat, kind="greedy", rng=rng))
        if (hand.result["winner"] is None) == (want == "draw"):
            return hand.to_json(), hand.result, seed.hex()
    raise AssertionError(f"no {want} found")


@pytest.fixture
def make_finished_hand(people):
    """make_finished_hand(preset=, players=, options=, piao={seat: n}, base=, want="win"|"draw",
    users=[...], practice=False, status="finished", fee=0, fee_payer="each") -> tables.Hand (a real
    engine hand)."""
    from apps.tables.models import Hand, Seat, Table

    counter = {"n": 0}

    def _make(preset="full", players=3, options=None, piao=None, base=1, want="win", users=None,
              practice=False, status="finished", dealer=0, table=None, fee=0, fee_payer="each"):
        state, result, seed = engine_state(preset, players, tuple(sorted((options or {}).items())), want, dealer)
        users = users if users is not None else [people[k] for k in ("owner", "member", "other", "admin")][:players]
        if table is None:
            table = Table.objects.create(
                club=people["club"], name=f"T{players}", preset=preset, options=options or {}, players=players,
                base_score=base, piao_choices=[0, 1, 2, 3, 5] if piao else [], ruleset=state["ruleset"],
                practice=practice, created_by=people["owner"], hands_per_session=99, fee=fee, fee_payer=fee_payer,
            )
            for i in range(players):
                Seat.objects.create(table=table, index=i, user=users[i] if i < len(users) else None,
                                    bot="" if i < len(users) and users[i] else "greedy")
        counter["n"] += 1
        # What tables freezes: who sat where, which seats play, and (once it ended) the totals.
        from apps.engine import Hand as EngineHand
        from apps.engine import settle

        engine_hand = EngineHand.from_json(state)
        seat_users = dict(Seat.objects.filter(table=table).values_list("index", "user_id"))
        totals = None
        if status == "finished":
            totals = json.loads(json.dumps(settle(engine_hand, base=table.base_score, piao=dict(piao or {}))))
        return Hand.objects.create(
            table=table, number=table.hands.count() + 1, dealer=dealer,
            seed_hash=hashlib.sha256(bytes.fromhex(seed)).hexdigest(),
            seed=seed if status != "playing" else "", ruleset=state["ruleset"], state=state,
            piao={str(k): v for k, v in (piao or {}).items()}, status=status,
            result=result if status == "finished" else None, totals=totals,
            players={str(k): v for k, v in seat_users.items()}, playing=list(engine_hand.active_seats),
            finished_at=timezone.now() - timedelta(minutes=1) if status == "finished" else None,
        )

    return _make
