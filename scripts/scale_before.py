"""The "before" of scale_bench: the code of an older commit measured on the same large database.

Run it from an export of that commit, against the database ``scale_bench`` built (the pages read
only tables both versions share; the old leaderboard rebuild is timed without its writes, the
reading and computing that ran every 5 minutes for every club):

    git archive main | tar -x -C /tmp/before && cp scripts/scale_before.py /tmp/before/
    cd /tmp/before && DATABASE_URL=postgres://…/paohuzi_bench .venv-python scale_before.py --club ID

Prints one JSON line: per item the median wall and CPU ms over --repeat calls and the queries.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402
from django.utils import timezone  # noqa: E402


def timed(fn, repeat):
    walls, cpus, queries = [], [], 0
    for _ in range(repeat):
        with CaptureQueriesContext(connection) as ctx:
            w, c = time.perf_counter(), time.process_time()
            fn()
            cpus.append((time.process_time() - c) * 1000)
            walls.append((time.perf_counter() - w) * 1000)
        queries = len(ctx.captured_queries)
    return {"wall_ms": round(statistics.median(walls), 2), "cpu_ms": round(statistics.median(cpus), 2),
            "queries": queries}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--club", type=int, required=True)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    from apps.clubs.models import Club, Membership
    from apps.ledgers import leaderboards, selectors

    club = Club.objects.get(pk=args.club)
    owner = club.memberships.get(role="owner").user
    member = Membership.objects.filter(club=club, role="member").order_by("pk").first()
    clients = {"owner": Client(), "member": Client()}
    clients["owner"].force_login(owner)
    clients["member"].force_login(member.user)
    hands = club.ledger_transactions.filter(kind="hand").count()
    items = {}
    pages = [
        ("page: club ledger (owner)", "owner", f"/ledgers/{club.pk}/"),
        ("page: club ledger, deep page (owner)", "owner", f"/ledgers/{club.pk}/?page={hands * 5 // 2 // 50 // 2}"),
        ("page: club ledger, one member, dates (owner)", "owner",
         f"/ledgers/{club.pk}/?member={member.pk}&date_from=2000-01-01"),
        ("page: my ledger (member)", "member", f"/ledgers/{club.pk}/me/"),
        ("page: audit log (owner)", "owner", f"/clubs/{club.pk}/audit/"),
        ("page: dispute queue (owner)", "owner", f"/audit/clubs/{club.pk}/disputes/"),
        ("page: collusion report, all time (owner)", "owner", f"/audit/clubs/{club.pk}/collusion/"),
    ]
    for name, role, url in pages:
        def get(url=url, role=role):
            response = clients[role].get(url)
            assert response.status_code == 200, (url, response.status_code)
        items[name] = timed(get, args.repeat)
    now = timezone.now()
    items["job: the periodic leaderboard rebuild of one club, read and compute (every 5 min)"] = timed(
        lambda: leaderboards._rows(club.pk, now), 3)
    items["job: sweep_unsettled"] = timed(lambda: selectors.unsettled_hand_ids(), args.repeat)
    from apps.replays.audit.selectors import unrecorded_hand_ids

    items["job: sweep_unrecorded"] = timed(lambda: unrecorded_hand_ids(), args.repeat)
    print(json.dumps({"hands": hands, "items": items}, ensure_ascii=False))


if __name__ == "__main__":
    main()
