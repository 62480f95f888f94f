"""In-process ``settle_hand`` on N fresh bench hands: CPU and wall ms per hand (cProfile with PROF=1).

Usage (a database of its own, migrated):
    N=500 [PROF=1] DATABASE_URL=postgres://postgres@127.0.0.1:5432/paohuzi_bench \
        .venv/bin/python manage.py shell < scripts/ledger_prof.py
"""

import cProfile
import io
import os
import pstats
import time

from apps.ledgers import services
from apps.ledgers.management.commands.ledger_bench import Command

n = int(os.environ.get("N", "500"))
club, ids = Command().setup({"hands": n, "states_per_scenario": 4, "tables": 50})
for hand_id in ids[:20]:  # warm up caches and connections
    services.settle_hand(hand_id=hand_id)
ids = ids[20:]
prof = cProfile.Profile() if os.environ.get("PROF") else None
t0, c0 = time.perf_counter(), time.process_time()
if prof:
    prof.enable()
for hand_id in ids:
    assert services.settle_hand(hand_id=hand_id).status == "posted"
if prof:
    prof.disable()
wall, cpu = time.perf_counter() - t0, time.process_time() - c0
print(f"{len(ids)} hands: wall {1000 * wall / len(ids):.2f} ms/hand, CPU {1000 * cpu / len(ids):.2f} ms/hand")
if prof:
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("cumulative").print_stats(30)
    print(out.getvalue()[:6000])
