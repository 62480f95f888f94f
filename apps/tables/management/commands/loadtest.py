"""Load tool: bot users play N tables of M hands over real WebSockets against a running server.

    python manage.py loadtest --url http://127.0.0.1:8000 --tables 4 --hands 2 [--spectators 1]

Users, a club, a template and the tables are created through the ORM in the database the server
uses (run it with the server's settings/environment). Each seat's socket acts only on its own
view, after a think time (--think-ms, default 300..1000 ms); ``--spectators N`` adds N sockets per
table of a club admin who watches (no hidden card, never acts). Prints one JSON line: tables, hands,
actions, latency_ms {p50,p95,p99} (act sent -> the update echoing that action's events on that
socket), errors, stale_seq refusals, verified_hands (hash chain intact and the engine's replay
reproducing the events and the settlement), and what every socket saw of its numbering: ``gaps``
(an update whose number is not one more than the last one the socket had), by kind of socket in
``gaps_by``, ``sockets_with_gaps``, ``out_of_order`` (an update numbered at or below one already
had), ``engine_gaps`` (the engine events' ``seq`` in a viewer's copy not running on by one, or
the view's ``seq`` not the last event's: RULES.md §5.3), and ``resyncs`` (every ``state`` a socket
got after its first one, asked for or pushed by the server's watch).

Where a round trip's time goes: with the servers' ``TABLES_TRACE_STAGES=1`` each echo carries the
server's stamps of its action (apps/tables/stages.py), and every timed action is broken down into
``to_server`` (act sent -> the consumer has the frame: this tool's loop, the network, the server's
loop), the server's stages (queue, lock, work, return, publish, transit, deliver) and ``to_client``
(forwarded -> read here). ``stages_ms`` gives each stage's median over all actions and over the
slowest 1% (latency at or above p99); ``loop_lag_ms`` how late this tool's own loop wakes a 10 ms
timer, so its own waiting is not taken for the server's. ``--trace FILE`` writes one line per
timed action: sent_at_s latency_ms table, its stages (name=ms) and ``kind=`` the action's type,
with ``+end`` when its update ended the hand.
"""

from __future__ import annotations

import asyncio
import gc
import json
import random
import secrets
import time
from collections import Counter

from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.contrib.sessions.backends.db import SessionStore
from django.core.management.base import BaseCommand
from django.db import OperationalError, connection

from apps.clubs.models import Club, Membership, RuleTemplate
from apps.tables.management.bench.wsclient import WebSocket
from apps.tables.read.presenters import legal_of
from apps.tables.storage.verify import verify_table_hands
from apps.tables.verbs import services


def _session_cookie(user) -> str:
    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.save()
    return f"{settings.SESSION_COOKIE_NAME}={session.session_key}"


IDLE_RESYNC = 10.0  # seconds without a message before a player asks for the state
RECONNECT_ATTEMPTS = 40  # about two minutes of a server being down


LAG_EVERY = 0.01  # the loop-lag timer's period, seconds
# A round trip's stages, in order (from the echo's server stamps: apps/tables/stages.py).
TRACE_STAGES = (("to_server", "sent", "recv"), ("queue", "recv", "thread"), ("lock", "thread", "lock"),
                ("work", "lock", "commit"), ("return", "commit", "back"), ("publish", "back", "pub"),
                ("transit", "pub", "hub"), ("deliver", "hub", "out"), ("to_client", "out", "got"))


def trace_stages(trace: dict | None, sent: float, got: float) -> dict[str, float]:
    """A timed action's stages in ms, from the echo's stamps (empty without them)."""
    if not trace:
        return {}
    stamps = {**trace, "sent": sent, "got": got}
    return {name: round((stamps[b] - stamps[a]) * 1000, 2) for name, a, b in TRACE_STAGES
            if a in stamps and b in stamps}


def action_kind(action: dict, update: dict) -> str:
    """A timed action's type for the trace, with ``+end`` when its update ended the hand (the
    heaviest actions: scoring, settlement, the next hand's bookkeeping)."""
    kind = str(action.get("type", "?")) if isinstance(action, dict) else "?"
    return kind + ("+end" if update["state"].get("stage") in ("settle", "over") else "")


def idle_detail(table_id: int, me: dict) -> dict:
    """What a player's socket had last when it heard nothing for ``IDLE_RESYNC`` seconds (the
    report says what the silent table was waiting for)."""
    last = me["last"] or {}
    state = last.get("state") or {}
    hand = state.get("hand") or {}
    return {"table": table_id, "seq": me["seq"], "pending": me["pending"] is not None, "acted": me["acted"],
            "last_type": last.get("type"), "stage": state.get("stage"), "me": state.get("me"),
            "hand_status": hand.get("status"), "phase": (hand.get("view") or {}).get("phase"),
            "to_act": (hand.get("view") or {}).get("to_act"), "legal": len(legal_of(hand or None)),
            "seats": [{k: s.get(k) for k in ("ready", "online", "tuoguan")} for s in state.get("seats") or []]}


def _median(values: list[float]) -> float:
    return _percentile(values, 0.5)


def stage_medians(rows: list[dict[str, float]]) -> dict[str, float]:
    return {name: _median([r[name] for r in rows if name in r]) for name, _, _ in TRACE_STAGES
            if any(name in r for r in rows)}


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    values = sorted(values)
    return round(values[min(len(values) - 1, int(q * len(values)))], 2)


class Command(BaseCommand):
    help = "Play bot tables over real WebSockets against a running server and report latency."

    def add_arguments(self, parser):
        parser.add_argument("--url", default="http://127.0.0.1:8000", help="server URL(s), comma-separated")
        parser.add_argument("--tables", type=int, default=2)
        parser.add_argument("--hands", type=int, default=1)
        parser.add_argument("--preset", default="full")
        parser.add_argument("--timeout", type=float, default=1800.0)
        parser.add_argument("--spread", choices=["table", "seat"], default="table",
                            help="with several --url: 'table' sends all sockets of a table to one server "
                                 "(as a proxy routing /ws/tables/<id>/ by id does), 'seat' spreads one "
                                 "table's seats over the servers (every move crosses processes)")
        parser.add_argument("--trace", default="",
                            help="write one line per timed action to this file: sent_at_s latency_ms table, "
                                 "its stages and kind")
        parser.add_argument("--think-ms", default="300,1000",
                            help="a player's think time before acting, ms: 'min,max' (uniform) or one number")
        parser.add_argument("--spectators", type=int, default=0,
                            help="sockets per table of a club admin watching the table (a spectator)")

    def handle(self, *args, **opts):
        tag = secrets.token_hex(3)
        tables = [self._make_table(tag, i, opts["hands"], opts["preset"], opts["spectators"])
                  for i in range(opts["tables"])]
        stats = {"actions": 0, "errors": 0, "latencies": [], "timed": [], "loop_lag": [],
                 "gaps_by": {"player": 0, "spectator": 0},
                 "sockets": 0, "sockets_with_gaps": 0, "out_of_order": 0, "engine_gaps": 0, "resyncs": 0}
        self.stdout.write(f"{len(tables)} tables ready; playing…")
        parts = [float(x) for x in str(opts["think_ms"]).split(",") if x.strip()] or [0.0]
        think = (parts[0], parts[-1])
        started = self.started = time.perf_counter()
        started_at = time.time()
        urls = [u.strip().rstrip("/") for u in opts["url"].split(",") if u.strip()]
        asyncio.run(self._run_all(urls, tables, stats, opts["timeout"], think, opts["spread"]))
        elapsed = time.perf_counter() - started
        hands, verified = self._verify(tables)
        lat = stats["latencies"]
        timed = stats["timed"]  # (sent at, latency ms, table, stages, kind)
        if opts["trace"]:
            with open(opts["trace"], "w") as fh:
                for sent, ms, table_id, parts, kind in sorted(timed, key=lambda t: t[0]):
                    detail = "".join(f" {k}={v}" for k, v in parts.items())
                    fh.write(f"{sent - started:.3f} {ms:.2f} {table_id}{detail} kind={kind}\n")
        p50, p99 = _percentile(lat, 0.5), _percentile(lat, 0.99)
        slow = [t for t in timed if t[1] >= p99]
        slowest = [parts for _, _, _, parts, _ in slow]
        lag = stats["loop_lag"]
        self.stdout.write(json.dumps({
            "tables": len(tables), "hands": hands, "actions": stats["actions"], "started_at": round(started_at, 3),
            "latency_ms": {"p50": p50, "p95": _percentile(lat, 0.95), "p99": p99,
                           "p999": _percentile(lat, 0.999)},
            "p99_over_p50": round(p99 / p50, 2) if p50 else None,
            "stages_ms": {"all_p50": stage_medians([t[3] for t in timed]),
                          "slowest_1pct_p50": stage_medians(slowest), "slowest_n": len(slowest),
                          "slowest_kinds": dict(Counter(kind for *_, kind in slow).most_common())},
            "loop_lag_ms": {"p50": _percentile(lag, 0.5), "p99": _percentile(lag, 0.99),
                            "max": round(max(lag), 2) if lag else 0.0},
            "gc_pauses": stats.get("gc_pauses", []),  # (at s, ms): this tool's full collections
            "latency_samples": len(lat), "max_ms": round(max(lat), 2) if lat else 0.0,
            "think_ms": list(think), "spread": opts["spread"], "seconds": round(elapsed, 1),
            "errors": stats["errors"], "error_codes": stats.get("codes", {}), "stale_seq": stats.get("stale", 0),
            "spectators": opts["spectators"], "sockets": stats["sockets"],
            "gaps": sum(stats["gaps_by"].values()), "gaps_by": stats["gaps_by"],
            "sockets_with_gaps": stats["sockets_with_gaps"], "out_of_order": stats["out_of_order"],
            "engine_gaps": stats["engine_gaps"], "resyncs": stats["resyncs"],
            "watch_timeouts": stats.get("watch_timeouts", 0),
            "lost_echo": stats.get("lost_echo", 0),
            "connect_retries": stats.get("connect_retries", 0), "reconnects": stats.get("reconnects", 0),
            "idle_resyncs": stats.get("idle_resyncs", 0),
            "idle_detail": stats.get("idle_detail", [])[:20],  # what each silent socket last had
            "verified_hands": verified,
        }))

    @staticmethod
    def _verify(tables) -> tuple[int, int]:
        """(hands, verified), on a fresh connection: the one from the setup may have died meanwhile
        (a PostgreSQL restart during a fault run); retried while the database is coming back."""
        for attempt in range(60):
            connection.close()
            try:
                hands = verified = 0
                for table_id, *_ in tables:
                    for problem in verify_table_hands(table_id):
                        hands += 1
                        verified += problem is None
                return hands, verified
            except OperationalError:
                if attempt == 59:
                    raise
                time.sleep(1)
        return 0, 0

    def _make_table(self, tag: str, i: int, hands: int, preset: str, spectators: int = 0):
        """(table id, the players' session cookies, the watching admin's cookies: one per socket)."""
        User = get_user_model()
        users = [User.objects.create_user(username=f"load-{tag}-{i}-{s}", display_name=f"bot{i}.{s}")
                 for s in range(3)]
        club = Club.objects.create(name=f"load {tag} {i}", owner=users[0])
        for n, user in enumerate(users):
            Membership.objects.create(club=club, user=user, role="owner" if n == 0 else "member")
        watchers = []
        if spectators:
            admin = User.objects.create_user(username=f"load-{tag}-{i}-admin", display_name=f"admin{i}")
            Membership.objects.create(club=club, user=admin, role="admin")
            watchers = [_session_cookie(admin) for _ in range(spectators)]
        template = RuleTemplate.objects.create(club=club, name="load", preset=preset, players=3,
                                               hands_per_session=hands, turn_seconds=600)
        table = services.table_open(user=users[0], template=template)
        for user in users[1:]:
            services.table_join(user=user, table_id=table.pk)
        return table.pk, [_session_cookie(u) for u in users], watchers

    async def _run_all(self, urls: list[str], tables, stats, timeout: float, think: tuple[float, float],
                       spread: str = "table") -> None:
        """Sockets go to the servers round robin, by table or by seat (see --spread)."""
        jobs = []
        watchers = []
        for t, (table_id, cookies, spectators) in enumerate(tables):
            for n, cookie in enumerate(cookies):
                base = urls[(t if spread == "table" else len(jobs)) % len(urls)]
                jobs.append(self._seat(base.replace("http", "ws", 1), base, table_id, cookie, stats,
                                       random.Random(f"{table_id}:{n}"), think, ramp=len(jobs) * 0.05))
            for n, cookie in enumerate(spectators):  # (with --spread seat, on the next server round)
                base = urls[(t if spread == "table" else t + n + 1) % len(urls)]
                watchers.append(self._watch(base.replace("http", "ws", 1), base, table_id, cookie, stats,
                                            ramp=t * 0.15))
        players = asyncio.gather(*jobs)
        watching = asyncio.gather(*watchers)
        lag = asyncio.create_task(self._loop_lag(stats["loop_lag"]))
        started: list[float] = []

        def gc_timer(phase, info):  # this tool's full collections stop its loop too
            if info.get("generation") == 2:
                if phase == "start":
                    started[:] = [time.perf_counter()]
                elif started:
                    stats.setdefault("gc_pauses", []).append(
                        (round(started[0] - self.started, 3), round((time.perf_counter() - started[0]) * 1000, 1)))
        gc.callbacks.append(gc_timer)
        # This tool's own full collections walk every message it holds (150 ms at 100 tables): the
        # setup is frozen out of them and they come far less often; what it keeps is plain JSON,
        # freed by reference counting.
        gc.collect()
        gc.freeze()
        thresholds = gc.get_threshold()
        gc.set_threshold(thresholds[0], thresholds[1], 1000)
        try:
            await asyncio.wait_for(players, timeout)
        finally:
            lag.cancel()
            gc.callbacks.remove(gc_timer)
            gc.set_threshold(*thresholds)
            gc.unfreeze()
        try:  # a spectator's last update follows the players' last move: give it a moment
            await asyncio.wait_for(watching, 30.0)
        except TimeoutError:
            stats["watch_timeouts"] = stats.get("watch_timeouts", 0) + 1

    @staticmethod
    async def _loop_lag(samples: list[float]) -> None:
        """How late this loop wakes a LAG_EVERY timer (ms), until cancelled."""
        while True:
            start = time.perf_counter()
            await asyncio.sleep(LAG_EVERY)
            samples.append(max(0.0, (time.perf_counter() - start - LAG_EVERY) * 1000))

    async def _seat(self, ws_base, origin, table_id, cookie, stats, rng, think, ramp=0.0) -> None:
        """One player: reads every message; after a think time acts on the newest state it saw.

        A round trip is timed from sending ``act`` to receiving the update that echoes that action
        (the ``action`` event of this seat); an action overtaken by newer events is not sent.
        """
        await asyncio.sleep(ramp)  # players arrive over a few seconds, not in one burst
        url = f"{ws_base}/ws/tables/{table_id}/"
        sock = {"ws": await self._connect(url, cookie, origin, stats, attempts=5)}
        # pending: (sent_at, action wire); acted: the seq it was sent with; last: the newest state had
        me = {"seq": 0, "pending": None, "planned": None, "acted": 0, "last": None}
        readied = set()  # hands_played values we already said ready for
        numbering = Numbering(stats, "player")

        async def send(message: dict) -> None:
            try:
                await sock["ws"].send_json(message)
            except (ConnectionError, OSError):
                pass  # the socket broke: the next read notices and reconnects

        async def act_later(seq: int, action: dict) -> None:
            await asyncio.sleep(rng.uniform(*think) / 1000)
            if me["seq"] != seq or me["pending"] is not None:
                return  # the table moved on meanwhile: decide again on the newer state
            stats["actions"] += 1
            me["pending"], me["acted"] = (time.perf_counter(), action, time.time()), seq
            try:
                await sock["ws"].send_json({"type": "act", "seq": seq, "action": action})
            except (ConnectionError, OSError):
                me["pending"] = None  # the socket broke: the reconnect brings the state again

        try:
            while True:
                try:
                    async with asyncio.timeout(IDLE_RESYNC):  # (no task per message, as wait_for makes)
                        msg = await sock["ws"].recv_json()
                except TimeoutError:  # nothing for a while: ask for the state, as the page does
                    stats["idle_resyncs"] = stats.get("idle_resyncs", 0) + 1
                    stats.setdefault("idle_detail", []).append(idle_detail(table_id, me))
                    readied.clear()  # a stalled table may be waiting for a ``ready`` that was lost
                    await send({"type": "resync"})
                    continue
                except (ConnectionError, OSError, asyncio.IncompleteReadError):
                    msg = None
                if msg is None:
                    # The server went away (a restart, a crash): reconnect as the page does; the
                    # server answers a new socket with the whole state.
                    stats["reconnects"] = stats.get("reconnects", 0) + 1
                    me["pending"] = None
                    # A ``ready`` sent just before the socket broke may have been lost with it (the
                    # server's call failed): say it again if the new state still shows us not ready.
                    readied.clear()
                    sock["ws"] = await self._connect(url, cookie, origin, stats, attempts=RECONNECT_ATTEMPTS)
                    numbering.reconnected()
                    me["last"] = None
                    continue
                gap = numbering.see(msg)
                if msg["type"] == "error":
                    code = msg["code"]
                    key = "stale" if code == "stale_seq" else "errors"
                    stats[key] = stats.get(key, 0) + 1
                    if code != "stale_seq":
                        stats.setdefault("codes", {}).setdefault(code, 0)
                        stats["codes"][code] += 1
                    me["pending"] = None
                    if code != "stale_seq":
                        await send({"type": "resync"})
                        continue
                    # Stale: a newer update crossed the action. Sent before this refusal (the socket's
                    # number is past the one acted on), it is here already: decide again on it;
                    # else it is on its way, and deciding waits for it. Neither needs the state.
                    if me["last"] is None or msg["seq"] <= me["acted"]:
                        continue
                    msg = me["last"]
                elif gap:  # as the page does: the whole state again
                    await send({"type": "resync"})
                    continue
                if msg["type"] == "state" and me["pending"] is not None:
                    stats["lost_echo"] = stats.get("lost_echo", 0) + 1  # resynced: the echo is not timed
                    me["pending"] = None
                if msg["type"] == "update" and me["pending"] is not None:
                    mine = msg["state"]["me"]
                    for ev in msg["events"]:
                        if ev.get("type") == "action" and ev.get("seat") == mine and ev.get("by") == "player":
                            now_, wall = time.perf_counter(), time.time()
                            sent, action, sent_wall = me["pending"]
                            ms = (now_ - sent) * 1000
                            stats["latencies"].append(ms)
                            stats["timed"].append((sent, ms, table_id, trace_stages(msg.get("trace"), sent_wall, wall),
                                                   action_kind(action, msg)))
                            me["pending"] = None
                            break
                me["seq"] = max(me["seq"], msg["seq"])
                me["last"] = msg
                state = msg["state"]
                seat = state["seats"][state["me"]]
                if state["stage"] == "over":
                    return
                if state["stage"] in ("seating", "settle") and not seat["ready"]:
                    if state["hands_played"] not in readied:
                        readied.add(state["hands_played"])
                        await send({"type": "ready"})
                elif legal_of(state["hand"]):
                    if msg["seq"] < me["seq"] or me["pending"] is not None:
                        continue
                    action = rng.choice(legal_of(state["hand"]))
                    asyncio.create_task(act_later(msg["seq"], action))
        finally:
            numbering.done()
            try:
                await sock["ws"].close()
            except (ConnectionError, OSError):
                pass

    async def _watch(self, ws_base, origin, table_id, cookie, stats, ramp=0.0) -> None:
        """A club admin watching the table (a spectator): reads every message until the session is
        over, checking its numbering; asks for the state on a gap, as the page does."""
        await asyncio.sleep(ramp)
        url = f"{ws_base}/ws/tables/{table_id}/"
        ws = await self._connect(url, cookie, origin, stats, attempts=5)
        numbering = Numbering(stats, "spectator")
        try:
            while True:
                try:
                    msg = await ws.recv_json()
                except (ConnectionError, OSError, asyncio.IncompleteReadError):
                    msg = None
                if msg is None:
                    stats["reconnects"] = stats.get("reconnects", 0) + 1
                    ws = await self._connect(url, cookie, origin, stats, attempts=RECONNECT_ATTEMPTS)
                    numbering.reconnected()
                    continue
                if numbering.see(msg):
                    await ws.send_json({"type": "resync"})
                    continue
                if msg["type"] != "error" and msg["state"]["stage"] == "over":
                    return
        finally:
            numbering.done()
            try:
                await ws.close()
            except (ConnectionError, OSError):
                pass

    @staticmethod
    async def _connect(url: str, cookie: str, origin: str, stats: dict, *, attempts: int) -> WebSocket:
        """Connect, retrying like a client app (a saturated or restarting server refuses a while)."""
        for attempt in range(attempts):
            try:
                return await WebSocket.connect(url, cookie=cookie, origin=origin)
            except (ConnectionError, OSError, asyncio.IncompleteReadError):
                stats["connect_retries"] = stats.get("connect_retries", 0) + 1
                await asyncio.sleep(min(1 + attempt, 3))
        raise ConnectionError(f"could not connect to {url}")


class Numbering:
    """What one socket saw of its numbering: the viewer's update numbers, and the engine events'
    ``seq`` in his copy of the hand (RULES.md §5.3: from 1, one more each, the view's ``seq`` the
    last one's)."""

    def __init__(self, stats: dict, kind: str):
        self.stats, self.kind = stats, kind
        self.seq = None  # the last update number had (None: no state yet)
        self.states = 0
        self.gaps = 0
        self.hand = None  # (hand number, last engine seq) of the viewer's copy
        stats["sockets"] += 1

    def reconnected(self) -> None:
        self.states -= 1  # the first state of a new socket is no resync
        self.seq = None

    def see(self, msg: dict) -> bool:
        """Account for one message; True for an update with a gap before it."""
        stats = self.stats
        if msg["type"] == "state":
            self.states += 1
            if self.states > 1:
                stats["resyncs"] += 1
            self.seq = msg["seq"]
            self._engine_state(msg["state"])
            return False
        if msg["type"] != "update" or self.seq is None:
            return False
        if msg["from_seq"] <= self.seq:
            stats["out_of_order"] += 1
            return False
        gap = msg["from_seq"] > self.seq + 1
        if gap:
            self.gaps += 1
            stats["gaps_by"][self.kind] += 1
            self.hand = None
        self.seq = msg["seq"]
        if not gap:
            self._engine_update(msg)
        return gap

    def _engine_state(self, state: dict) -> None:
        hand = state.get("hand")
        self.hand = None if hand is None else (hand["number"], hand["view"]["seq"])

    def _engine_update(self, msg: dict) -> None:
        hand = msg["state"].get("hand")
        if hand is None:
            return
        number, last = self.hand if self.hand is not None else (None, None)
        for ev in msg["events"]:
            if ev.get("type") == "hand.start":
                number, last = ev["number"], 0
            elif ev.get("type") == "engine" and last is not None:
                if ev["event"]["seq"] != last + 1:
                    self.stats["engine_gaps"] += 1
                last = ev["event"]["seq"]
        if number == hand["number"] and last is not None and hand["view"]["seq"] != last:
            self.stats["engine_gaps"] += 1
        self.hand = (hand["number"], hand["view"]["seq"])

    def done(self) -> None:
        if self.gaps:
            self.stats["sockets_with_gaps"] += 1
