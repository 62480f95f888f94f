"""Load tool: bot users play N tables of M hands over real WebSockets against a running server.

    python manage.py loadtest --url http://127.0.0.1:8000 --tables 4 --hands 2

Users, a club, a template and the tables are created through the ORM in the database the server
uses (run it with the server's settings/environment). Each seat's socket acts only on its own
view. Prints one JSON line: tables, hands, actions, latency_ms {p50,p95,p99} (act sent -> the
next update on that socket), errors, verified_hands (hash chain intact and the engine's replay
reproducing the events and the settlement).
"""

from __future__ import annotations

import asyncio
import json
import random
import secrets
import time

from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.contrib.sessions.backends.db import SessionStore
from django.core.management.base import BaseCommand

from apps.clubs.models import Club, Membership, RuleTemplate
from apps.tables import services
from apps.tables.verify import verify_table_hands
from apps.tables.wsclient import WebSocket


def _session_cookie(user) -> str:
    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.save()
    return f"{settings.SESSION_COOKIE_NAME}={session.session_key}"


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    values = sorted(values)
    return round(values[min(len(values) - 1, int(q * len(values)))], 2)


class Command(BaseCommand):
    help = "Play bot tables over real WebSockets against a running server and report latency."

    def add_arguments(self, parser):
        parser.add_argument("--url", default="http://127.0.0.1:8000")
        parser.add_argument("--tables", type=int, default=2)
        parser.add_argument("--hands", type=int, default=1)
        parser.add_argument("--preset", default="full")
        parser.add_argument("--timeout", type=float, default=600.0)

    def handle(self, *args, **opts):
        tag = secrets.token_hex(3)
        tables = [self._make_table(tag, i, opts["hands"], opts["preset"]) for i in range(opts["tables"])]
        stats = {"actions": 0, "errors": 0, "latencies": []}
        asyncio.run(self._run_all(opts["url"].rstrip("/"), tables, stats, opts["timeout"]))
        hands = verified = 0
        for table_id, _ in tables:
            for problem in verify_table_hands(table_id):
                hands += 1
                verified += problem is None
        lat = stats["latencies"]
        self.stdout.write(json.dumps({
            "tables": len(tables), "hands": hands, "actions": stats["actions"],
            "latency_ms": {"p50": _percentile(lat, 0.5), "p95": _percentile(lat, 0.95), "p99": _percentile(lat, 0.99)},
            "errors": stats["errors"], "error_codes": stats.get("codes", {}), "verified_hands": verified,
        }))

    def _make_table(self, tag: str, i: int, hands: int, preset: str):
        User = get_user_model()
        users = [User.objects.create_user(username=f"load-{tag}-{i}-{s}", display_name=f"bot{i}.{s}")
                 for s in range(3)]
        club = Club.objects.create(name=f"load {tag} {i}", owner=users[0])
        for n, user in enumerate(users):
            Membership.objects.create(club=club, user=user, role="owner" if n == 0 else "member")
        template = RuleTemplate.objects.create(club=club, name="load", preset=preset, players=3,
                                               hands_per_session=hands, turn_seconds=600)
        table = services.table_open(user=users[0], template=template)
        for user in users[1:]:
            services.table_join(user=user, table_id=table.pk)
        return table.pk, [_session_cookie(u) for u in users]

    async def _run_all(self, base: str, tables, stats, timeout: float) -> None:
        ws_base = base.replace("http", "ws", 1)
        jobs = [self._seat(ws_base, base, table_id, cookie, stats, random.Random(f"{table_id}:{n}"))
                for table_id, cookies in tables for n, cookie in enumerate(cookies)]
        await asyncio.wait_for(asyncio.gather(*jobs), timeout)

    async def _seat(self, ws_base, origin, table_id, cookie, stats, rng) -> None:
        ws = await WebSocket.connect(f"{ws_base}/ws/tables/{table_id}/", cookie=cookie, origin=origin)
        sent_at = None
        seq = 0
        readied = set()  # hands_played values we already said ready for
        try:
            while True:
                msg = await ws.recv_json()
                if msg is None:
                    return
                if msg["type"] == "error":
                    if msg["code"] != "stale_seq":
                        stats["errors"] += 1
                        stats.setdefault("codes", {}).setdefault(msg["code"], 0)
                        stats["codes"][msg["code"]] += 1
                    sent_at = None
                    await ws.send_json({"type": "resync"})
                    continue
                if msg["type"] == "update" and msg["from_seq"] > seq + 1:
                    await ws.send_json({"type": "resync"})
                    continue
                seq = max(seq, msg["seq"])
                if sent_at is not None and msg["type"] == "update":
                    stats["latencies"].append((time.perf_counter() - sent_at) * 1000)
                    sent_at = None
                state = msg["state"]
                me = state["seats"][state["me"]]
                if state["stage"] == "over":
                    return
                if state["stage"] in ("seating", "settle") and not me["ready"]:
                    if state["hands_played"] not in readied:
                        readied.add(state["hands_played"])
                        await ws.send_json({"type": "ready"})
                elif state["hand"] and state["hand"]["status"] == "playing" and state["hand"]["legal"]:
                    if msg["seq"] < seq:
                        continue
                    action = rng.choice(state["hand"]["legal"])
                    stats["actions"] += 1
                    sent_at = time.perf_counter()
                    await ws.send_json({"type": "act", "seq": msg["seq"], "action": action})
        finally:
            await ws.close()
