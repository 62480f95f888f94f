"""The fault run's driver (run by scripts/fault_run.sh on the topology scripts/cluster.sh starts).

While tables play through nginx — human tables driven by ``manage.py loadtest`` over WebSockets,
and bot tables (a 托管 player and two bots) whose every move is a deadline fired by beat and the
Celery worker — it kills -9 a Daphne, kills -9 the worker (its main process and pool children),
restarts Redis and restarts PostgreSQL, each ROUNDS times, measuring after each fault how long
until every table that was in play moves again. Then it waits for the load to end and for
settlement, and checks: every started hand ended or is resumable, hash chains and the replays
verify (``apps.replays.verification``, ledger part included), every finished hand is settled
exactly once, ``ledger_audit`` is clean, no seat is left online without a socket and no open table
is past its deadline (or open and silent). Prints ONE JSON line; exits 1 when anything is lost,
doubled, stuck, online without a socket or unverified, when the ledger audit fails, when a table
stopped moving while the load ran (``load_stalled``), or when a fault found no table in play or the
tables did not all move again within 90 s (its ``recovery_s`` is then null).

``recovery_s`` per fault: from the fault (the kill, or the restart command) until every table that
was in play has a new ``action`` event (or has ended); the JSON gives the worst of each kind and
``recovery_each_s`` every one.

Connection drops during a fault are the clients' reconnects (counted in ``reconnects``), not
failures; ``client_errors`` are the server's ``error`` replies the load tool counted (a refused
action: the table did not change), reported separately and not a failure by themselves.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.db import OperationalError, close_old_connections, connection  # noqa: E402
from django.db.models import Count, Max  # noqa: E402
from django.utils import timezone  # noqa: E402

from apps.clubs.models import Club, Membership, RuleTemplate  # noqa: E402
from apps.ledgers.models import Transaction  # noqa: E402
from apps.replays.verification import session_checklists  # noqa: E402
from apps.tables.models import Hand, Seat, Table, TableEvent  # noqa: E402
from apps.tables.transaction.snapshot import table_snapshot  # noqa: E402
from apps.tables.verbs import services  # noqa: E402

PY = sys.executable
OPEN = ("waiting", "playing")
RECOVERY_TIMEOUT = 90.0
STALL_SECONDS = 60.0  # no move on any table for this long while the load tool runs: a stall


def log(msg: str) -> None:
    print(f"[fault {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def db(func, *args, tries: int = 120, **kwargs):
    """``func`` against the database, retried while PostgreSQL is restarting."""
    for attempt in range(tries):
        try:
            return func(*args, **kwargs)
        except OperationalError:
            connection.close()
            if attempt == tries - 1:
                raise
            time.sleep(0.5)
        finally:
            close_old_connections()


# ---- the load ----------------------------------------------------------------------------------


def make_bot_tables(n: int, hands: int) -> list[int]:
    """Practice tables: seat 0 a player on 托管 (never connected), seats 1-2 bots; all deadlines."""
    User = get_user_model()
    tag = os.urandom(3).hex()
    ids = []
    for i in range(n):
        user = User.objects.create_user(username=f"fault-{tag}-{i}", display_name=f"fault{i}")
        club = Club.objects.create(name=f"fault {tag} {i}", owner=user)
        Membership.objects.create(club=club, user=user, role="owner")
        template = RuleTemplate.objects.create(club=club, name="fault", preset="full", players=3,
                                               hands_per_session=hands, turn_seconds=600)
        table = services.table_open(user=user, template=template, practice=True)
        services.seat_ready(user=user, table_id=table.pk)
        services.seat_set_tuoguan(user=user, table_id=table.pk, on=True)
        ids.append(table.pk)
    return ids


def action_seqs() -> dict[int, int]:
    """Each table's seq of its last action (a move, not a presence or bookkeeping event)."""
    return dict(TableEvent.objects.filter(type="action").order_by().values("table_id")
                .annotate(m=Max("seq")).values_list("table_id", "m"))


def open_ids() -> set[int]:
    return set(Table.objects.filter(status__in=OPEN).values_list("pk", flat=True))


def wait_recovered(baseline: dict[int, int], t0: float) -> tuple[float | None, list[int]]:
    """Seconds from the fault until every table of ``baseline`` moved (or ended); the laggards."""
    while True:
        seqs, still_open = db(action_seqs), db(open_ids)
        behind = [t for t, s in baseline.items() if t in still_open and seqs.get(t, 0) <= s]
        now = time.monotonic()
        if not behind:
            return round(now - t0, 2), []
        if now - t0 > RECOVERY_TIMEOUT:
            return None, behind
        time.sleep(0.2)


# ---- the faults --------------------------------------------------------------------------------


class Cluster:
    def __init__(self, conf: str, daphne_ports: list[int], pg_version: str):
        self.conf, self.ports, self.pg_version = conf, daphne_ports, pg_version

    def ctl(self, *args: str) -> str:
        return subprocess.run([str(ROOT / ".venv/bin/supervisorctl"), "-c", self.conf, *args],
                              capture_output=True, text=True).stdout.strip()

    def pid(self, name: str) -> int:
        try:
            return int(self.ctl("pid", name))
        except ValueError:
            return 0

    def pids(self) -> dict[str, int]:
        names = [f"paohuzi:daphne-{p}" for p in self.ports] + ["paohuzi:worker", "paohuzi:beat"]
        return {n.split(":")[1]: self.pid(n) for n in names}

    def wait_running(self, name: str, old: int, timeout: float = 60) -> float | None:
        t0 = time.monotonic()
        while time.monotonic() - t0 < timeout:
            pid = self.pid(name)
            if pid and pid != old and "RUNNING" in self.ctl("status", name):
                return round(time.monotonic() - t0, 2)
            time.sleep(0.2)
        return None

    def kill_daphne(self, k: int) -> dict:
        name = f"paohuzi:daphne-{self.ports[k % len(self.ports)]}"
        pid = self.pid(name)
        os.kill(pid, signal.SIGKILL)
        return {"name": name, "pid": pid}

    def kill_worker(self) -> dict:
        name = "paohuzi:worker"
        pid = self.pid(name)
        children = [int(p) for p in subprocess.run(["pgrep", "-P", str(pid)], capture_output=True,
                                                   text=True).stdout.split()]
        for p in [pid, *children]:  # the whole worker, as when its host or container dies
            try:
                os.kill(p, signal.SIGKILL)
            except ProcessLookupError:
                pass
        return {"name": name, "pid": pid, "children": len(children)}

    @staticmethod
    def restart_redis() -> dict:
        subprocess.run(["redis-cli", "-h", "127.0.0.1", "-p", "6379", "shutdown", "nosave"],
                       capture_output=True)
        time.sleep(1.0)  # down for a moment, as a real restart is
        subprocess.run(["redis-server", "--daemonize", "yes", "--bind", "127.0.0.1", "--port", "6379",
                        "--save", "", "--appendonly", "no"], check=True, capture_output=True)
        for _ in range(100):
            if subprocess.run(["redis-cli", "-h", "127.0.0.1", "ping"], capture_output=True).returncode == 0:
                break
            time.sleep(0.1)
        return {}

    def restart_postgres(self) -> dict:
        subprocess.run(["pg_ctlcluster", "--skip-systemctl-redirect", self.pg_version, "main", "restart"],
                       check=True, capture_output=True)
        return {}


def run_fault(cluster: Cluster, kind: str, k: int) -> dict:
    before = cluster.pids()
    t0 = time.monotonic()
    if kind == "postgres":  # nothing can be read while it is down: the baseline is taken just before
        baseline = {t: s for t, s in db(action_seqs).items() if t in db(open_ids)}
        t0 = time.monotonic()
        info = cluster.restart_postgres()
    else:
        info = {"daphne": lambda: cluster.kill_daphne(k), "worker": cluster.kill_worker,
                "redis": cluster.restart_redis}[kind]()
        baseline = {t: s for t, s in db(action_seqs).items() if t in db(open_ids)}
    if baseline:
        recovery, behind = wait_recovered(baseline, t0)
    else:  # nothing was in play: the fault tested nothing (the load must last through the faults)
        log(f"no table in play at the {kind} fault")
        recovery, behind = None, []
    if kind in ("daphne", "worker"):
        info["restarted_s"] = cluster.wait_running(info["name"], info["pid"])
    time.sleep(1.0)
    after = cluster.pids()
    info.update(kind=kind, tables=len(baseline), recovery_s=recovery, behind=behind[:10],
                restarted=sorted(n for n in before if before[n] != after.get(n)))
    log(json.dumps(info))
    return info


# ---- the checks --------------------------------------------------------------------------------


def final_checks(table_ids: list[int], grace: float) -> dict:
    tables = {t.pk: t for t in Table.objects.filter(pk__in=table_ids).select_related("club")}
    hands = list(Hand.objects.filter(table_id__in=table_ids).order_by("table_id", "number"))
    ended = [h for h in hands if h.status in ("finished", "dissolved")]
    tx = dict(Transaction.objects.filter(hand_id__in=[h.pk for h in hands]).order_by().values("hand_id")
              .annotate(n=Count("pk")).values_list("hand_id", "n"))
    verified = 0
    problems: list[str] = []
    for table_id in sorted({h.table_id for h in ended}):
        table_hands = [h for h in ended if h.table_id == table_id]
        results, table_level = session_checklists(tables[table_id], table_hands)
        problems += [f"table {table_id}: {c.key}: {c.detail}" for c in table_level]
        for hand in table_hands:
            bad = [c for c in results[hand.pk] if not c.ok]
            verified += not bad
            if bad:
                problems.append(f"hand {hand.pk}: {bad[0].key}: {bad[0].detail}")
    lost = 0
    now = timezone.now()
    stuck = []
    for hand in hands:
        if hand.status == "finished" and tx.get(hand.pk, 0) == 0:
            lost += 1  # a finished hand that was never settled
            problems.append(f"hand {hand.pk}: finished, not settled")
        elif hand.status == "playing":
            try:  # resumable: the table is open and the hand rebuilds from its rows
                table_snapshot(table_id=hand.table_id, viewer=None)
                resumable = tables[hand.table_id].status in OPEN
            except Exception as exc:  # noqa: BLE001 - any failure to rebuild is a lost hand
                problems.append(f"hand {hand.pk}: not resumable: {exc!r}")
                resumable = False
            lost += not resumable
    last_move = dict(TableEvent.objects.filter(table_id__in=table_ids).order_by().values("table_id")
                     .annotate(m=Max("created_at")).values_list("table_id", "m"))
    for table in tables.values():
        if table.status not in OPEN:
            continue
        overdue = [d for d in (table.deadline, table.dissolve_deadline) if d is not None]
        idle = (now - last_move.get(table.pk, table.created_at)).total_seconds()
        # Past its deadline, or open and silent (nobody left to move it: the load tool has ended).
        if any((now - d).total_seconds() > grace for d in overdue) or idle > 3 * grace:
            stuck.append(table.pk)
    online = list(Seat.objects.filter(table_id__in=table_ids, user__isnull=False, online=True)
                  .values_list("table_id", "index"))
    return {
        "hands": len(hands), "ended": len(ended), "verified": verified,
        "settled": sum(1 for h in hands if h.status == "finished" and tx.get(h.pk) == 1),
        "finished": sum(1 for h in hands if h.status == "finished"),
        "lost": lost, "doubled": sum(1 for n in tx.values() if n > 1),
        "stuck_tables": len(stuck), "stuck": stuck[:10], "online_without_socket": len(online),
        "online_seats": online[:10], "problems": problems[:20],
    }


def wait_load(load: subprocess.Popen, quiet: float) -> bool:
    """Wait for the load tool; True (and it is stopped) when an open table did not move for ``quiet``
    seconds (its players would wait for ever: the run would only end at the load tool's timeout)."""
    seen: dict[int, tuple[int, float]] = {}
    while load.poll() is None:
        seqs, still_open, now = db(action_seqs), db(open_ids), time.monotonic()
        for table_id in still_open:
            seq = seqs.get(table_id, 0)
            if seen.get(table_id, (None,))[0] != seq:
                seen[table_id] = (seq, now)
        silent = sorted(t for t in still_open if now - seen[t][1] > quiet)
        if silent:
            log(f"tables {silent[:10]} did not move for {quiet:.0f} s: the load tool is stopped")
            load.kill()
            load.wait()
            return True
        time.sleep(1)
    return False


def wait_settled(table_ids: list[int], timeout: float) -> int:
    """Wait until every finished hand of the run has a transaction (the worker, or the sweep)."""
    t0 = time.monotonic()
    while True:
        left = db(lambda: Hand.objects.filter(table_id__in=table_ids, status="finished")
                  .exclude(pk__in=Transaction.objects.filter(hand__isnull=False).values("hand_id")).count())
        if left == 0 or time.monotonic() - t0 > timeout:
            return left
        time.sleep(1)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", required=True)
    ap.add_argument("--supervisor-conf", required=True)
    ap.add_argument("--daphne-ports", required=True, help="comma-separated")
    ap.add_argument("--pg-version", required=True)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--tables", type=int, default=12)
    ap.add_argument("--hands", type=int, default=2)
    ap.add_argument("--bot-tables", type=int, default=6)
    ap.add_argument("--bot-hands", type=int, default=2)
    ap.add_argument("--gap", type=float, default=4.0, help="seconds of plain play between faults")
    ap.add_argument("--order", default="worker,redis,daphne,postgres",
                    help="worker and redis first: a settlement they drop is swept again within a minute")
    ap.add_argument("--end-wait", type=float, default=180.0,
                    help="seconds to wait after the load tool for the bot tables to end (those still "
                         "playing then must be resumable and moving)")
    ap.add_argument("--out", default="/tmp/fault_run")
    opts = ap.parse_args()
    out = Path(opts.out)
    started = time.monotonic()
    cluster = Cluster(opts.supervisor_conf, [int(p) for p in opts.daphne_ports.split(",")], opts.pg_version)

    bot_tables = make_bot_tables(opts.bot_tables, opts.bot_hands)
    log(f"{len(bot_tables)} bot tables dealt; starting the load tool through {opts.url}")
    load_out = open(out / "loadtest.out", "w")
    load = subprocess.Popen([PY, str(ROOT / "manage.py"), "loadtest", "--url", opts.url, "--tables",
                             str(opts.tables), "--hands", str(opts.hands), "--think-ms", "200,700",
                             "--timeout", "1200", "--trace", str(out / "trace.txt")],
                            stdout=load_out, stderr=subprocess.STDOUT, cwd=ROOT)
    for _ in range(600):  # the load tool's tables are dealt and being played
        if db(lambda: Hand.objects.filter(status="playing").exclude(table_id__in=bot_tables).count()) >= max(
                1, opts.tables // 2):
            break
        time.sleep(0.2)
    faults: dict[str, int] = {"daphne": 0, "worker": 0, "redis": 0, "postgres": 0}
    recovery: dict[str, list[float | None]] = {k: [] for k in faults}
    details = []
    order = [k.strip() for k in opts.order.split(",") if k.strip()]
    for _ in range(opts.rounds):
        for kind in order:
            time.sleep(opts.gap)
            if load.poll() is not None:
                log("the load tool ended before the faults did: make the run longer (--hands)")
            info = run_fault(cluster, kind, faults[kind])
            faults[kind] += 1
            recovery[kind].append(info["recovery_s"])
            details.append(info)
    log("faults done; waiting for the load tool")
    stalled = wait_load(load, quiet=STALL_SECONDS)
    load_out.close()
    lines = (out / "loadtest.out").read_text().strip().splitlines()
    try:
        lt = json.loads(lines[-1])
    except (ValueError, IndexError):
        lt = {}
        log("the load tool printed no result: " + " | ".join(lines[-5:]))
    table_ids = list(db(lambda: list(Table.objects.values_list("pk", flat=True))))
    # Bot tables still playing are fine (resumable, checked below) as long as they keep moving.
    t_end = time.monotonic() + opts.end_wait
    while time.monotonic() < t_end and db(lambda: Table.objects.filter(status__in=OPEN).exists()):
        time.sleep(1)
    time.sleep(3)  # the last sockets' disconnects mark their seats offline
    left = wait_settled(table_ids, timeout=150)
    checks = db(final_checks, table_ids, grace=10.0)
    audit_rc = subprocess.run([PY, str(ROOT / "manage.py"), "ledger_audit"], cwd=ROOT, capture_output=True,
                              text=True)
    (out / "ledger_audit.out").write_text(audit_rc.stdout + audit_rc.stderr)

    def worst(values):
        known = [v for v in values if v is not None]
        return None if not values or len(known) < len(values) else max(known)

    result = {
        "faults": faults, "hands": checks["hands"], "verified": checks["verified"], "settled": checks["settled"],
        "lost": checks["lost"], "doubled": checks["doubled"], "stuck_tables": checks["stuck_tables"],
        "online_without_socket": checks["online_without_socket"], "reconnects": lt.get("reconnects", 0),
        "recovery_s": {k: worst(v) for k, v in recovery.items()},
        "recovery_each_s": recovery,
        "ended": checks["ended"], "finished": checks["finished"], "unsettled_after_wait": left,
        "ledger_audit": "clean" if audit_rc.returncode == 0 else "FAILED",
        "client_errors": lt.get("errors"), "client_error_codes": lt.get("error_codes"),
        "loadtest": {k: lt.get(k) for k in ("tables", "hands", "verified_hands", "connect_retries",
                                            "lost_echo", "gaps", "idle_resyncs", "seconds")},
        "restarted_by_supervisor": {f"{d['kind']}#{i}": d["restarted"] for i, d in enumerate(details)},
        "load_stalled": stalled,
        "wall_s": round(time.monotonic() - started, 1),
    }
    if checks["problems"]:
        result["problems"] = checks["problems"]
    if checks["stuck"] or checks["online_seats"]:
        result["stuck"], result["online_seats"] = checks["stuck"], checks["online_seats"]
    print(json.dumps(result), flush=True)
    bad = (checks["lost"] or checks["doubled"] or checks["stuck_tables"] or checks["online_without_socket"]
           or checks["verified"] != checks["ended"] or audit_rc.returncode != 0 or not lt or stalled
           or any(v is None for vs in recovery.values() for v in vs))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
