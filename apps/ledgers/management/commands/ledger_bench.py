"""Settlement throughput and crash-safety bench (see README.md, "Ledgers").

1. Plays a few real engine hands with the bots (several presets, piao modes, a sit_out table).
2. Bulk-creates ``--hands`` finished tables.Hand rows reusing those states, on many tables.
3. Enqueues apps.ledgers.tasks.settle_hand for each through the real broker (Redis) and waits
   until every hand has its transaction; prints hands/second.
4. With ``--kill-at F``: when a fraction F is settled, kill -9 the whole worker process group,
   start a new worker, run the outbox sweep (lost, unacked messages), and finish.
5. Runs ledger_audit.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import signal
import subprocess
import sys
import time
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.utils import timezone

from apps.clubs.models import Club, Membership
from apps.ledgers import tasks
from apps.ledgers.models import Transaction

# (preset, players, options, piao per seat)
SCENARIOS = [
    ("full", 3, {}, None),
    ("full", 3, {"piao": True, "piao_mode": "both"}, {0: 1, 1: 2, 2: 3}),
    ("full", 3, {"piao": True, "piao_mode": "loser"}, {0: 5, 1: 0, 2: 1}),
    ("full", 3, {"piao": True, "piao_mode": "winner"}, {0: 2, 1: 3, 2: 0}),
    ("luzhou", 4, {"piao": True}, {0: 1, 1: 1, 2: 2, 3: 3}),
    ("chenzhou", 2, {}, None),
]


def play_states(per_scenario: int) -> list[tuple]:
    from apps.engine import settle
    from apps.engine.bots.choose import bot_choose
    from apps.engine.play.hand import Hand
    from apps.engine.rules import resolve_ruleset

    out = []
    for preset, players, options, piao in SCENARIOS:
        rs = resolve_ruleset(preset, options, players=players)
        for i in range(per_scenario):
            seed = hashlib.sha256(f"bench-{preset}-{players}-{options}-{i}".encode()).digest()
            hand = Hand(rs, dealer=i % players, seed=seed)
            rng = random.Random(i)
            while not hand.finished:
                seat = hand.to_act()[0]
                hand.apply(seat, bot_choose(hand, seat, kind="greedy", rng=rng))
            # what tables freezes when a hand ends: the engine's totals and the seats that played
            totals = json.loads(json.dumps(settle(hand, base=1, piao=piao or {})))
            out.append((players, hand.to_json(), hand.result, seed.hex(), hand.dealer, piao, totals,
                        list(hand.active_seats)))
    return out


class Command(BaseCommand):
    help = "Bench settle_hand through a real Celery worker; optionally kill -9 it midway."

    def add_arguments(self, parser):
        parser.add_argument("--hands", type=int, default=10_000)
        parser.add_argument("--states-per-scenario", type=int, default=4)
        parser.add_argument("--tables", type=int, default=200)
        parser.add_argument("--spawn-worker", action="store_true", help="start (and stop) the worker here")
        parser.add_argument("--concurrency", type=int, default=2, help="processes per prefork worker")
        parser.add_argument("--pool", choices=["prefork", "solo", "threads"], default="prefork")
        parser.add_argument("--workers", type=int, default=1, help="worker processes to start")
        parser.add_argument("--prefetch", type=int, default=4, help="worker --prefetch-multiplier")
        parser.add_argument("--no-reuse-connections", dest="reuse_connections", action="store_false",
                            help="workers with CELERY_DB_REUSE_MAX=0 (Celery then reconnects to PostgreSQL per task)")
        parser.add_argument("--batch", type=int, default=500,
                            help="enqueue through a Redis pipeline flushed every N messages (1: one round trip each)")
        parser.add_argument("--kill-at", type=float, default=0.0, help="kill -9 the worker at this fraction")
        parser.add_argument("--timeout", type=float, default=600.0)

    def handle(self, *args, **opts):
        if getattr(settings, "CELERY_TASK_ALWAYS_EAGER", False):
            raise CommandError("Set REDIS_URL: the bench goes through a real broker and worker.")
        if opts["kill_at"] and not opts["spawn_worker"]:
            raise CommandError("--kill-at needs --spawn-worker (the bench kills the worker it started).")
        club, hand_ids = self.setup(opts)
        self.workers = self.start_workers(opts) if opts["spawn_worker"] else []
        try:
            self.run(club, hand_ids, opts)
        finally:
            for worker in self.workers:
                self.stop_worker(worker)
        self.stdout.write("ledger_audit:")
        call_command("ledger_audit", stdout=self.stdout)

    # --- setup ---------------------------------------------------------------------------
    def setup(self, opts) -> tuple[Club, list[int]]:
        from apps.clubs.services import club_create
        from apps.tables.models import Hand, Seat, Table

        t0 = time.monotonic()
        states = play_states(opts["states_per_scenario"])
        self.stdout.write(f"played {len(states)} engine hands with bots in {time.monotonic() - t0:.1f}s")
        tag = f"bench{int(time.time())}"
        User = get_user_model()
        users = User.objects.bulk_create([User(username=f"{tag}_u{i}") for i in range(40)])
        users = list(User.objects.filter(username__startswith=f"{tag}_u").order_by("pk"))
        club = club_create(name=tag, owner=users[0])
        Membership.objects.bulk_create([Membership(club=club, user=u) for u in users[1:]])
        rng = random.Random(7)
        n_tables = opts["tables"]
        per_table = -(-opts["hands"] // n_tables)
        finished_at = timezone.now() - timedelta(minutes=1)
        with transaction.atomic():
            tables = []
            for t in range(n_tables):
                players, state, *_ = states[t % len(states)]
                tables.append(Table(club=club, name=f"{tag}-{t}", preset=state["ruleset"]["preset"],
                                    players=players, ruleset=state["ruleset"], hands_per_session=per_table,
                                    hands_played=per_table, status="finished", created_by=users[0]))
            tables = Table.objects.bulk_create(tables)
            seats, seat_users = [], []
            for table in tables:
                sample = rng.sample(users, table.players)
                seat_users.append({str(i): user.pk for i, user in enumerate(sample)})
                for i, user in enumerate(sample):
                    seats.append(Seat(table=table, index=i, user=user))
            Seat.objects.bulk_create(seats, batch_size=2000)
            rows = []
            for n in range(opts["hands"]):
                t = n % n_tables
                players, state, result, seed, dealer, piao, totals, playing = states[t % len(states)]
                rows.append(Hand(table=tables[t], number=n // n_tables + 1, dealer=dealer,
                                 seed_hash=hashlib.sha256(bytes.fromhex(seed)).hexdigest(), seed=seed,
                                 ruleset=state["ruleset"], state=state, status="finished", result=result,
                                 piao={str(k): v for k, v in (piao or {}).items()}, finished_at=finished_at,
                                 totals=totals, players=seat_users[t], playing=playing))
            created = Hand.objects.bulk_create(rows, batch_size=1000)
        self.stdout.write(f"created {len(created)} finished hands on {n_tables} tables in club {club.pk} "
                          f"({time.monotonic() - t0:.1f}s)")
        return club, [h.pk for h in created]

    # --- worker ------------------------------------------------------------------------
    def start_workers(self, opts) -> list:
        return [self.start_worker(opts, i) for i in range(opts["workers"])]

    def start_worker(self, opts, index: int = 0):
        env = {**os.environ, "CONN_MAX_AGE": os.environ.get("CONN_MAX_AGE", "60")}
        if not opts["reuse_connections"]:  # Celery's default: a new connection around every task
            env["CELERY_DB_REUSE_MAX"] = "0"
        log = open(os.environ.get("LEDGER_BENCH_WORKER_LOG", "/tmp/ledger_bench_worker.log"), "ab")
        cmd = [sys.executable, "-m", "celery", "-A", "config", "worker", "-l", "warning",
               "-P", opts["pool"], "-c", str(opts["concurrency"]), "-n", f"bench{index}@%h",
               "--without-gossip", "--without-mingle", "--without-heartbeat",
               "--prefetch-multiplier", str(opts["prefetch"]), "-O", "fair"]
        proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=log, start_new_session=True,
                                cwd=settings.BASE_DIR)
        self.stdout.write(f"worker started: pid {proc.pid} (process group {proc.pid}), pool {opts['pool']}, "
                          f"concurrency {1 if opts['pool'] == 'solo' else opts['concurrency']}, prefetch {opts['prefetch']}")
        return proc

    @staticmethod
    def group_cpu_seconds(pgid: int) -> float:
        """utime + stime of every live process in a process group (Linux /proc)."""
        total, tick = 0, os.sysconf("SC_CLK_TCK")
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                with open(f"/proc/{pid}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid:  # fields[0] is the state; [2] the pgrp; [11], [12] utime, stime
                total += int(fields[11]) + int(fields[12])
        return total / tick

    def stop_worker(self, proc) -> None:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()

    @staticmethod
    def queue_depth() -> int:
        """Messages waiting in the default queue (not those prefetched or unacked by a worker)."""
        app = tasks.settle_hand.app
        with app.connection_for_read() as conn:
            try:
                return conn.default_channel.queue_declare(
                    queue=app.conf.task_default_queue, passive=True
                ).message_count
            except conn.channel_errors:  # Redis: an empty queue is no key at all
                return 0

    # --- the run -------------------------------------------------------------------------
    def settled(self, club) -> int:
        return Transaction.objects.filter(club=club, kind="hand").count()

    def run(self, club, hand_ids, opts) -> None:
        total = len(hand_ids)
        t0 = time.monotonic()
        app = tasks.settle_hand.app
        # Still one settle_hand message per hand; kombu's producer batch only pipelines the LPUSHes.
        with app.producer_or_acquire() as producer:
            if opts["batch"] > 1:
                with producer.batch(max_size=opts["batch"]):
                    for hand_id in hand_ids:
                        tasks.settle_hand.apply_async(args=[hand_id], producer=producer)
            else:
                for hand_id in hand_ids:
                    tasks.settle_hand.apply_async(args=[hand_id], producer=producer)
        self.stdout.write(f"enqueued {total} settle_hand tasks in {time.monotonic() - t0:.1f}s")
        killed_at, last, last_change, swept = None, -1, time.monotonic(), 0
        while True:
            done = self.settled(club)
            now = time.monotonic()
            if done != last:
                last, last_change = done, now
                self.stdout.write(f"  {now - t0:6.1f}s  {done}/{total} settled")
            if done >= total:
                break
            if opts["kill_at"] and killed_at is None and done >= opts["kill_at"] * total:
                for worker in self.workers:
                    os.killpg(worker.pid, signal.SIGKILL)
                    worker.wait()
                killed_at = done
                self.stdout.write(self.style.WARNING(f"  kill -9 every worker process group at {done}/{total}"))
                self.workers = self.start_workers(opts)
            elif now - last_change > 5 and self.queue_depth() == 0:
                # Queue drained but hands are missing: their messages died with the worker.
                n = tasks.sweep_unsettled(limit=total)
                swept += n
                self.stdout.write(f"  sweep_unsettled re-enqueued {n} hands")
                last_change = now
            if now - t0 > opts["timeout"]:
                raise CommandError(f"timeout: {done}/{total} settled")
            time.sleep(0.25)
        elapsed = time.monotonic() - t0
        if self.workers and not opts["kill_at"]:
            cpu = sum(self.group_cpu_seconds(w.pid) for w in self.workers)
            self.stdout.write(f"worker CPU: {cpu:.1f}s for {total} hands = {1000 * cpu / total:.2f} ms/hand "
                              f"(load average now {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)")
        dupes = Transaction.objects.filter(club=club, kind="hand").values("hand_id").distinct().count()
        self.stdout.write(self.style.SUCCESS(
            f"settled {total} hands in {elapsed:.1f}s: {total / elapsed:.0f} hands/s "
            f"(enqueue included; killed at {killed_at}, swept {swept}); "
            f"transactions for this club: {self.settled(club)}, distinct hands: {dupes}"
        ))
