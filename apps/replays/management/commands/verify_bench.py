"""``manage.py verify_bench --hands 10000``: create many settled hands quickly, then time ``verify_hands``.

Like ``ledger_bench``: a few real engine hands are played by greedy bots (presets and player counts
2, 3 and 4, piao), then ``--hands`` finished hand rows are bulk-created on ``--tables`` tables,
each table with its full hash-chained log (table.open, joins, per hand hand.start, the engine and
action events, hand.end, table.end) exactly as the tables app writes it, and every hand is settled
by the ledger's own ``settle_hand`` service. Then ``verify_hands --club <bench club>`` runs and its
throughput line is printed. Use a database of your own (DATABASE_URL=sqlite:////tmp/x.sqlite3 or a
PostgreSQL database): it writes thousands of rows.
"""

from __future__ import annotations

import hashlib
import random
import time
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils import timezone

from apps.clubs.models import Club, Membership
from apps.engine import settle
from apps.engine.bots.choose import bot_choose
from apps.engine.play.hand import Hand as EngineHand
from apps.engine.records.chain import GENESIS_HASH, link_hash
from apps.engine.rules import resolve_ruleset
from apps.ledgers.services import settle_hand
from apps.tables.models import Hand, Seat, Table, TableEvent

# (preset, players, options, piao per seat or None)
SCENARIOS = [
    ("full", 3, {}, None),
    ("full", 3, {"piao": True}, {0: 1, 1: 2, 2: 0}),
    ("changsha", 3, {}, None),
    ("chenzhou", 2, {}, {0: 1, 1: 0}),
    ("luzhou", 4, {}, None),
    ("chenzhou", 4, {}, {0: 0, 1: 1, 2: 2, 3: 0}),
]


def played_hands(per_scenario: int) -> list[tuple]:
    """``(preset, players, engine hand, piao)`` for real bot-played hands."""
    out = []
    for preset, players, options, piao in SCENARIOS:
        rs = resolve_ruleset(preset, options, players=players)
        for i in range(per_scenario):
            seed = hashlib.sha256(f"verify-bench-{preset}-{players}-{i}".encode()).digest()
            hand = EngineHand(rs, dealer=i % players, seed=seed)
            rng = random.Random(i)
            while not hand.finished:
                seat = hand.to_act()[0]
                hand.apply(seat, bot_choose(hand, seat, "greedy", rng))
            out.append((preset, players, hand, piao or {}))
    return out


class _Log:
    """A table's event log being written: seq and hash chain."""

    def __init__(self, table: Table, at):
        self.table, self.rows, self.prev, self.at = table, [], GENESIS_HASH, at

    def add(self, type_: str, payload: dict, hand: Hand | None = None) -> None:
        digest = link_hash(self.prev, payload)
        self.rows.append(TableEvent(table=self.table, hand=hand, seq=len(self.rows) + 1, type=type_,
                                    payload=payload, prev_hash=self.prev, hash=digest, created_at=self.at))
        self.prev = digest


class Command(BaseCommand):
    help = "Create --hands settled hands with their hash-chained logs, then time verify_hands on them."

    def add_arguments(self, parser):
        parser.add_argument("--hands", type=int, default=10_000)
        parser.add_argument("--tables", type=int, default=400)
        parser.add_argument("--per-scenario", type=int, default=6)
        parser.add_argument("--no-verify", action="store_true", help="only create the hands")

    def handle(self, *args, **opts):
        t0 = time.monotonic()
        plays = played_hands(opts["per_scenario"])
        self.stdout.write(f"played {len(plays)} engine hands in {time.monotonic() - t0:.1f}s")
        club, hand_ids = self.create(plays, opts["hands"], opts["tables"])
        self.stdout.write(f"created {len(hand_ids)} finished hands with their logs in club {club.pk} "
                          f"({time.monotonic() - t0:.1f}s)")
        t1 = time.monotonic()
        for hand_id in hand_ids:
            settle_hand(hand_id=hand_id)
        self.stdout.write(f"settled them through the ledger in {time.monotonic() - t1:.1f}s")
        if not opts["no_verify"]:
            call_command("verify_hands", "--club", str(club.pk), stdout=self.stdout)

    def create(self, plays, n_hands: int, n_tables: int) -> tuple[Club, list[int]]:
        from apps.clubs.services import club_create

        tag = f"vbench{int(time.time())}"
        User = get_user_model()
        User.objects.bulk_create([User(username=f"{tag}_u{i}", display_name=f"玩家{i}") for i in range(40)])
        users = list(User.objects.filter(username__startswith=f"{tag}_u").order_by("pk"))
        club = club_create(name=tag, owner=users[0])
        Membership.objects.bulk_create([Membership(club=club, user=u) for u in users[1:]])
        rng = random.Random(7)
        per_table = -(-n_hands // n_tables)
        at = timezone.now() - timedelta(hours=1)
        ids = []
        with transaction.atomic():
            for t in range(n_tables):
                count = min(per_table, n_hands - t * per_table)
                if count <= 0:
                    break
                preset, players, first, _ = plays[t % len(plays)]
                same = [p for p in plays if p[0] == preset and p[1] == players]
                table = Table.objects.create(
                    club=club, name=f"{tag}-{t}", preset=preset, players=players, ruleset=first.rs.to_json(),
                    base_score=2, hands_per_session=count, hands_played=count, status="finished", stage="over",
                    created_by=users[0], finished_at=at,
                )
                seated = rng.sample(users, players)
                Seat.objects.bulk_create([Seat(table=table, index=i, user=u) for i, u in enumerate(seated)])
                log = _Log(table, at)
                log.add("table.open", {"name": table.name, "preset": preset, "players": players})
                for i, u in enumerate(seated):
                    log.add("seat.join", {"seat": i, "user": u.pk, "name": u.name})
                log.add("table.start", {"dealer": 0})
                hands = []
                for number in range(1, count + 1):
                    _, _, engine, piao = same[(t + number) % len(same)]
                    hands.append((Hand(
                        table=table, number=number, dealer=engine.dealer,
                        seed_hash=hashlib.sha256(engine.seed).hexdigest(), seed=engine.seed.hex(),
                        ruleset=engine.rs.to_json(), state=engine.to_json(), status="finished",
                        piao={str(k): v for k, v in piao.items()},
                        players={str(i): u.pk for i, u in enumerate(seated)}, playing=list(engine.active_seats),
                        result=_json(engine.result), totals=_json(settle(engine, base=2, piao=piao)),
                        started_at=at, finished_at=at,
                    ), engine))
                rows = Hand.objects.bulk_create([h for h, _ in hands])
                for (row, engine) in zip(rows, [e for _, e in hands], strict=True):
                    self.log_hand(log, row, engine)
                    ids.append(row.pk)
                log.add("table.end", {"reason": "complete", "hands_played": count, "summary": []})
                TableEvent.objects.bulk_create(log.rows, batch_size=2000)
                Table.objects.filter(pk=table.pk).update(seq=len(log.rows), last_hash=log.prev)
        return club, ids

    @staticmethod
    def log_hand(log: _Log, row: Hand, engine: EngineHand) -> None:
        """The events the tables app writes for one hand, in its order."""
        for seat in range(engine.players):
            log.add("seat.ready", {"seat": seat})
        log.add("hand.start", {"number": row.number, "dealer": row.dealer, "seed_hash": row.seed_hash,
                               "piao": row.piao}, row)
        replay = EngineHand(engine.rs, dealer=engine.dealer, seed=engine.seed)
        for ev in replay.events:
            log.add("engine", _json(ev.to_wire()), row)
        for seat, action in engine.actions:
            log.add("action", {"seat": seat, "action": action.to_wire(), "by": "player"}, row)
            for ev in replay.apply(seat, action):
                log.add("engine", _json(ev.to_wire()), row)
        log.add("hand.end", {"number": row.number, "seed": row.seed, "seed_hash": row.seed_hash,
                             "winner": row.result.get("winner"), "result": row.result, "totals": row.totals}, row)


def _json(value):
    import json

    return json.loads(json.dumps(value))
