"""The database side of live play, in one process, without sockets: CPU per client action.

    python manage.py move_bench --tables 50 --hands 1

Plays ``--tables`` 3-player tables round robin (one action of each table in turn, as a busy server
interleaves them), calling what the socket consumer calls in its database threads: a socket's
connect (``services.socket_open``), ``ready``, every move (``play.hand_act`` with its updates
collected, as ``consumers._call`` does) and the disconnect. Prints one JSON line with the CPU
milliseconds (``time.process_time``) per client action and per kind of call, and the queries per
move. The Daphne side (frames, the channel layer) is not in it: ``scripts/bench_tables.sh``
measures the whole server.
"""

from __future__ import annotations

import json
import random
import secrets
import time
from collections import defaultdict

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import connection

from apps.clubs.models import Club, Membership, RuleTemplate
from apps.tables.live import consumers
from apps.tables.read.presenters import legal_of
from apps.tables.storage.verify import verify_table_hands
from apps.tables.verbs import play, services


def open_socket(*, user, table_id):
    """What a socket's connect runs in a database thread (``TableConsumer.connect``)."""
    sends, snap, error = consumers.collecting(services.socket_open)(user=user, table_id=table_id)
    if error is not None:
        raise error
    return snap


def close_socket(*, user, table_id):
    consumers.collecting(services.seat_set_online)(user=user, table_id=table_id, online=False)


class Command(BaseCommand):
    help = "CPU per client action of the tables' database side (no sockets), interleaving tables."

    def add_arguments(self, parser):
        parser.add_argument("--tables", type=int, default=50)
        parser.add_argument("--hands", type=int, default=1)
        parser.add_argument("--preset", default="full")
        parser.add_argument("--seed", type=int, default=1)

    def handle(self, *args, **opts):
        rng = random.Random(opts["seed"])
        tag = secrets.token_hex(3)
        User = get_user_model()
        tables = []
        for i in range(opts["tables"]):
            users = [User.objects.create_user(username=f"mb-{tag}-{i}-{s}", display_name=f"p{i}.{s}")
                     for s in range(3)]
            club = Club.objects.create(name=f"mb {tag} {i}", owner=users[0])
            for n, user in enumerate(users):
                Membership.objects.create(club=club, user=user, role="owner" if n == 0 else "member")
            template = RuleTemplate.objects.create(club=club, name="mb", preset=opts["preset"], players=3,
                                                   hands_per_session=opts["hands"], turn_seconds=600)
            table = services.table_open(user=users[0], template=template)
            for user in users[1:]:
                services.table_join(user=user, table_id=table.pk)
            tables.append((table.pk, users))
        cpu: dict[str, float] = defaultdict(float)
        calls: dict[str, int] = defaultdict(int)

        def run(kind, func, **kwargs):
            t0 = time.process_time()
            out = func(**kwargs)
            cpu[kind] += time.process_time() - t0
            calls[kind] += 1
            return out

        queries = [0]

        def count(execute, sql, params, many, context):
            queries[0] += 1
            return execute(sql, params, many, context)

        # Each seat: connect (its first state), then act on the newest state it was sent.
        seen: dict[tuple[int, int], dict] = {}
        for table_id, users in tables:
            for seat, user in enumerate(users):
                snap = run("connect", open_socket, user=user, table_id=table_id)
                seen[table_id, seat] = {"seq": snap["seq"], "state": snap["state"]}

        def deliver(sends):
            for _group, message in sends:
                for key, view in message["views"].items():
                    if key != "spectator":
                        seen[int(_group.split(".")[1]), int(key)] = json.loads(view)

        live = {table_id for table_id, _ in tables}
        moves_sql = [0, 0]
        while live:
            for table_id, users in tables:
                if table_id not in live:
                    continue
                acted = False
                for seat, user in enumerate(users):
                    view = seen[table_id, seat]
                    state = view["state"]
                    if state["stage"] == "over":
                        continue
                    if state["stage"] in ("seating", "settle") and not state["seats"][seat]["ready"]:
                        sends, _, err = run("ready", consumers.collecting(services.seat_ready),
                                         user=user, table_id=table_id)
                        deliver(sends)
                        acted = True
                        break
                    legal = legal_of(state.get("hand"))
                    if legal:
                        before = queries[0]
                        with connection.execute_wrapper(count):
                            sends, _, err = run("move", consumers.collecting(play.hand_act), user=user,
                                             table_id=table_id, seq=view["seq"], action=rng.choice(legal))
                        moves_sql[0] += 1
                        moves_sql[1] += queries[0] - before
                        if err is not None:
                            raise err
                        deliver(sends)
                        acted = True
                        break
                if not acted:
                    live.discard(table_id)
        for table_id, users in tables:
            for user in users:
                run("disconnect", close_socket, user=user, table_id=table_id)
        problems = [p for table_id, _ in tables for p in verify_table_hands(table_id) if p is not None]
        actions = calls["move"] + calls["ready"]
        total = sum(cpu.values())
        self.stdout.write(json.dumps({
            "tables": len(tables), "client_actions": actions, "moves": calls["move"],
            "cpu_ms_per_client_action": round(1000 * total / max(actions, 1), 3),
            "cpu_ms_per_call": {k: round(1000 * v / calls[k], 3) for k, v in sorted(cpu.items())},
            "queries_per_move": round(moves_sql[1] / max(moves_sql[0], 1), 2),
            "vendor": connection.vendor, "verify_problems": problems[:3],
        }))
