"""Run a whole match end to end with bot players, through the real services, and report it.

    python manage.py match_sim --format fixed --players 9 --rounds 2 --hands 1
    python manage.py match_sim --format elimination --players 12 --hands 1
    python manage.py match_sim --format knockout --players 13 --hands 1 --table-size 3

What it does, in the order a club would:
1. a club with an owner, a rule template (``--preset``, default ``full`` for three seats and
   ``chenzhou`` with piao for four), N bot players who are real users and join through an invite
   and the owner's approval, each credited the entry fee (上分, ``adjustment_create``);
2. a match through ``match_create`` (entry fee ``--fee``, prizes 50/30/20 % of the pool), every bot
   ``register``s and ``check_in``s in the check-in window, then ``start_due`` at the start time
   seats round 1 (the match's own clock is passed as ``now``: nobody waits an hour);
3. the driving loop, as the beat would: each bot at a new table switches on 托管 (its own seat,
   ``seat_set_tuoguan``), so ``apps.tables.transaction.unit.autoplay`` plays its seat exactly as it plays an
   absent player's; overdue deadlines are fired (``deadline_fire``: the piao phase and any stalled
   decision); ``advance`` records finished tables and seats the next round; until the match is
   finished or ``--timeout`` seconds passed;
4. the ledger audit (``apps.ledgers.invariants.run_all``) and the checks below.

Bots play at once (``TABLES_BOT_DELAY`` = 0 inside the command) and Celery tasks run inline in
this process (hand settlement included), with or without ``REDIS_URL``: no worker is needed, and
with Redis the table updates are still published to the channel layer.

Prints exactly one line of JSON: format, players, rounds (rounds played, the final included),
hands (hands played at the match's tables), tables (match tables opened), seconds, errors (failed
calls plus failed end checks: the match not finished, a table not recorded, ranks not 1..N,
prizes not summing to the pool, a bot's balance not fee-in/prize-out), ledger_audit ("clean" or
the problems), escrow (its balance at the end: 0), top3 (display names). Details of errors go to
stderr. Exit status 1 when errors or the audit is not clean.
"""

from __future__ import annotations

import json
import logging
import secrets
import sys
import time
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

DEFAULT_PRESET = {2: "chenzhou", 3: "full", 4: "chenzhou"}
PRIZES = {"kind": "percent", "percents": [50, 30, 20]}
MAX_ERRORS_SHOWN = 20


class Command(BaseCommand):
    help = "Create a club, bot players and a match, run it end to end through the services, report JSON."

    def add_arguments(self, parser):
        parser.add_argument("--format", choices=["fixed", "elimination", "knockout"], default="fixed")
        parser.add_argument("--players", type=int, default=9, help="entrants (bot users)")
        parser.add_argument("--rounds", type=int, default=3, help="fixed: rounds")
        parser.add_argument("--hands", type=int, default=1,
                            help="hands per round (fixed, knockout) and at the final table (elimination, knockout)")
        parser.add_argument("--table-size", type=int, default=3, choices=[2, 3, 4])
        parser.add_argument("--preset", default="", help="rule preset (default: full; chenzhou for 2 or 4 seats)")
        parser.add_argument("--fee", type=int, default=100, help="entry fee (club points)")
        parser.add_argument("--top", type=int, default=1, help="knockout: players per table who advance")
        parser.add_argument("--start-chips", type=int, default=1000, help="elimination: starting chips")
        parser.add_argument("--line", type=int, default=None,
                            help="elimination: the first line (default start chips - 30)")
        parser.add_argument("--rise-by", type=int, default=10, help="elimination: the line rises by this")
        parser.add_argument("--rise-every", type=int, default=1, help="elimination: ... every N hands")
        parser.add_argument("--timeout", type=float, default=1800.0, help="give up after this many seconds")

    def handle(self, *args, **opts):
        if opts["players"] < opts["table_size"]:
            raise CommandError(f"--players must be at least the table size ({opts['table_size']}).")
        if opts["fee"] < 0:
            raise CommandError("--fee cannot be negative.")
        settings.TABLES_BOT_DELAY = 0
        if opts["verbosity"] < 2:  # one line of JSON: keep the per-task INFO logging out of the way
            for name in ("", "celery", "apps"):
                logging.getLogger(name).setLevel(logging.WARNING)
        from config.celery import app

        eager = (app.conf.task_always_eager, app.conf.task_eager_propagates)
        app.conf.task_always_eager, app.conf.task_eager_propagates = True, False
        try:
            result, ok = Sim(opts, self.stderr).run()
        finally:
            app.conf.task_always_eager, app.conf.task_eager_propagates = eager
        self.stdout.write(json.dumps(result, ensure_ascii=False))
        if not ok:
            sys.exit(1)


class Sim:
    def __init__(self, opts, stderr):
        self.opts = opts
        self.stderr = stderr
        self.errors: list[str] = []

    def error(self, text: str) -> None:
        self.errors.append(text)
        if len(self.errors) <= MAX_ERRORS_SHOWN:
            self.stderr.write(f"match_sim error: {text}")

    # ---- setup ----------------------------------------------------------------------------------

    def setup(self):
        from apps.clubs import services as clubs
        from apps.clubs.models import Membership
        from apps.ledgers.services import adjustment_create

        opts = self.opts
        tag = secrets.token_hex(3)
        User = get_user_model()
        owner = User.objects.create_user(username=f"sim{tag}_owner", password=None, display_name=f"模拟东家{tag}")
        club = clubs.club_create(name=f"模拟比赛 {tag}", owner=owner)
        size = opts["table_size"]
        preset = opts["preset"] or DEFAULT_PRESET[size]
        piao = [0, 1, 2] if preset == "chenzhou" else []
        template = clubs.template_create(
            club=club, by=owner, name=f"比赛 {preset} {size}人", preset=preset, options={}, players=size,
            base_score=1, piao_choices=piao, hands_per_session=8, turn_seconds=15,
        )
        invite = clubs.invite_create(club=club, by=owner, max_uses=opts["players"])
        bots = []
        for i in range(1, opts["players"] + 1):
            bot = User.objects.create_user(username=f"sim{tag}_{i:04d}", password=None, display_name=f"机器人{i}")
            clubs.join_request_approve(join_request=clubs.join_request_create(invite=invite, user=bot), by=owner)
            bots.append(bot)
        if opts["fee"]:
            members = {m.user_id: m for m in Membership.objects.filter(club=club, user__in=bots)}
            for bot in bots:
                adjustment_create(club=club, member=members[bot.pk], amount=opts["fee"],
                                  reason="match_sim: entry fee", by=owner)
        return owner, club, template, bots

    def create_match(self, owner, club, template):
        from apps.matches import services

        opts = self.opts
        starts_at = timezone.now() + timedelta(hours=1)
        fields = {
            "name": f"模拟{ {'fixed': '定局积分', 'elimination': '打立出局', 'knockout': '淘汰赛'}[opts['format']] }赛",
            "template": template, "format": opts["format"], "starts_at": starts_at,
            "min_entrants": opts["table_size"], "max_entrants": opts["players"], "entry_fee": opts["fee"],
            "prize_scheme": PRIZES, "hands_per_round": opts["hands"], "rounds": opts["rounds"],
            "final_hands": opts["hands"],
        }
        if opts["format"] == "elimination":
            start = opts["start_chips"]
            fields.update(elim_start_chips=start, elim_line=start - 30 if opts["line"] is None else opts["line"],
                          elim_rise_by=opts["rise_by"], elim_rise_every=opts["rise_every"])
        if opts["format"] == "knockout":
            fields["knockout_top"] = opts["top"]
        return services.match_create(club=club, by=owner, **fields)

    # ---- the run --------------------------------------------------------------------------------

    def run(self):
        from apps.matches import services

        t0 = time.perf_counter()
        owner, club, template, bots = self.setup()
        match = self.create_match(owner, club, template)
        for bot in bots:
            services.register(match=match, user=bot)
        at = match.starts_at - timedelta(minutes=5)
        for bot in bots:
            services.check_in(match=match, user=bot, now=at)
        services.start_due(now=match.starts_at + timedelta(seconds=1))
        match.refresh_from_db()
        if match.state != "running":
            self.error(f"the match did not start: {match.state} {match.cancel_reason}")
        self.drive(match, t0)
        match.refresh_from_db()
        self.check(match, club, bots)
        return self.report(match, club, bots, time.perf_counter() - t0)

    def drive(self, match, t0) -> None:
        from apps.matches import services
        from apps.tables.models import Seat
        from apps.tables.transaction import unit
        from apps.tables.transaction.context import TableError
        from apps.tables.verbs import play
        from apps.tables.verbs.services import seat_set_tuoguan

        limit = t0 + self.opts["timeout"]
        idle = 0
        while True:
            match.refresh_from_db(fields=["state", "current_round"])
            if match.state != "running":
                return
            if time.perf_counter() > limit:
                self.error(f"timeout after {self.opts['timeout']}s in round {match.current_round}")
                return
            moved = 0
            for table_id in services.open_table_ids(match_id=match.pk):
                try:
                    for seat in Seat.objects.filter(table_id=table_id, tuoguan=False, user__isnull=False,
                                                    bot="").select_related("user"):
                        try:
                            seat_set_tuoguan(user=seat.user, table_id=table_id, on=True)
                        except TableError as exc:
                            # 托管 goes on only while a table plays: one that ended since it was
                            # listed (or has not dealt yet) is no error of the match.
                            if exc.code not in ("table_closed", "not_playing"):
                                raise
                            break
                        moved += 1
                    moved += unit.autoplay(table_id=table_id)
                    moved += play.deadline_fire(table_id=table_id, at=timezone.now() + timedelta(hours=1))
                except TableError as exc:
                    self.error(f"table {table_id}: {exc}")
            try:
                moved += bool(services.advance(match_id=match.pk))
            except Exception as exc:  # noqa: BLE001 - counted and reported; the loop goes on
                self.error(f"advance: {exc!r}")
            idle = 0 if moved else idle + 1
            if idle >= 50:
                self.error(f"stalled in round {match.current_round}: nothing moved 50 times")
                return

    # ---- checks and report ------------------------------------------------------------------

    def escrow(self, match) -> int:
        from apps.ledgers.models import Account

        return Account.objects.get(pk=match.escrow_id).balance

    def check(self, match, club, bots) -> None:
        from apps.ledgers.models import Account
        from apps.matches.models import Entrant, MatchTable

        if match.state != "finished":
            self.error(f"the match ended {match.state}, not finished")
            return
        if MatchTable.objects.filter(match=match, results__isnull=True).exists():
            self.error("a match table was never recorded")
        entries = list(Entrant.objects.filter(match=match))
        ranks = sorted(e.rank for e in entries if e.rank is not None)
        if ranks != list(range(1, len(entries) + 1)):
            self.error(f"ranks are not 1..{len(entries)}: {ranks[:10]}...")
        pool = self.opts["fee"] * len(entries)
        if sum(e.prize for e in entries) != pool:
            self.error(f"prizes sum to {sum(e.prize for e in entries)}, the pool is {pool}")
        balances = dict(Account.objects.filter(club=club, kind="member", user__in=bots)
                        .values_list("user_id", "balance"))
        wrong = [e.user_id for e in entries if balances.get(e.user_id, 0) != e.prize]
        if wrong:
            self.error(f"{len(wrong)} bot balances are not fee in, prize out (e.g. user {wrong[0]})")

    def report(self, match, club, bots, seconds):
        from apps.ledgers import invariants
        from apps.matches.models import Entrant, MatchRound, MatchTable
        from apps.tables.models import Hand, HandStatus

        problems = {k: v for k, v in invariants.run_all().items() if v}
        top = (Entrant.objects.filter(match=match, rank__isnull=False).order_by("rank")
               .select_related("user")[:3])
        escrow = self.escrow(match)
        if escrow != 0:
            self.error(f"the escrow holds {escrow} at the end")
        result = {
            "format": self.opts["format"],
            "players": len(bots),
            "rounds": MatchRound.objects.filter(match=match).count(),
            "hands": Hand.objects.filter(table__match_table__match=match, status=HandStatus.FINISHED).count(),
            "tables": MatchTable.objects.filter(match=match).count(),
            "seconds": round(seconds, 1),
            "errors": len(self.errors),
            "ledger_audit": "clean" if not problems else problems,
            "escrow": escrow,
            "top3": [str(e.user) for e in top],
        }
        return result, not self.errors and not problems
