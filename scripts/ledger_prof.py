"""In-process settle_hand on N fresh bench hands, cProfiled. Usage: manage.py shell < this (env N)."""
import cProfile, os, pstats, time, io
from apps.ledgers.management.commands.ledger_bench import Command
from apps.ledgers import services
from django.db import connection, reset_queries
from django.conf import settings
n = int(os.environ.get("N", "500"))
cmd = Command()
club, ids = cmd.setup({"hands": n, "states_per_scenario": 4, "tables": 50})
# warm up
for i in ids[:20]:
    services.settle_hand(hand_id=i)
ids = ids[20:]
prof = cProfile.Profile() if os.environ.get("PROF") else None
t0, c0 = time.perf_counter(), time.process_time()
if prof: prof.enable()
for i in ids:
    assert services.settle_hand(hand_id=i).status == "posted"
if prof: prof.disable()
wall, cpu = time.perf_counter() - t0, time.process_time() - c0
print(f"{len(ids)} hands: wall {1000*wall/len(ids):.2f} ms/hand, CPU {1000*cpu/len(ids):.2f} ms/hand")
if prof:
    s = io.StringIO(); pstats.Stats(prof, stream=s).sort_stats("cumulative").print_stats(30); print(s.getvalue()[:6000])
