"""Seating a match round: a pure function (entrants, standings, history, constraints, seed) → tables.

No Django here (import-linter contract), so anyone can recompute a round from the revealed seed with
``python -m apps.matches.seating --recompute SEED_HEX --players 7,3,12,... --table-size 3``.

The algorithm, in order (every step deterministic; ``random`` is never used):

1. **Order.** ``by_standings=False`` (round 1, and any shuffled re-draw): the entrants' user ids
   sorted ascending, shuffled by Fisher–Yates with the word stream of RULES.md §11.7 (the engine's
   deck shuffle, apps/engine/shuffle.py) from the round seed: the match seed itself for round 1,
   ``sha256(seed + b"round" + round_no as 4 big-endian bytes)`` for later rounds.
   ``by_standings=True`` (定局积分 rounds after the first): the players as given, best first.
2. **Byes.** When ``len(players) % table_size`` players are left over, that many sit the round out:
   the lowest placed in the order who have not had a bye yet (then, if everyone has, the lowest
   placed). The services give them ``formats.bye_points``. Only when the byes themselves force an
   avoid pair together (too few tables to part them) does a player of that pair take the bye
   instead (lowest placed without a bye first).
3. **Cut.** The rest are cut into tables in order: places 1–3, 4–6, … (three seats).
4. **Constraints**, hard as possible, in priority: a pair on the avoid list (shared IP address in
   the last 30 days, the club's "never at one table" list) is never at one table when any valid
   seating avoids it; then no two players who already met share a table again when avoidable; then
   players of similar standings together. When the cut breaks a constraint, swaps repair it: the
   lower placed player of a broken pair swaps with the nearest-placed player elsewhere whose swap
   lowers the count of broken pairs. If swaps get stuck, a bounded backtracking search (most
   constrained player first, forward checking, deterministic restarts with doubling node limits)
   looks for a seating with no broken pair at all, then for one with no broken avoid pair.
5. **Seat order.** Round 1 keeps the shuffled order within each table; by-standings rounds shuffle
   each table's seats with the round seed's word stream (tables in order), so the best placed
   player is not always in seat 0.

Without avoid pairs and without earlier meetings, round 1 is exactly steps 1–3: that is what the
match page's recomputation shows. With constraints the repair depends on the (private) avoid list,
and ``Seating.method`` says which step produced the seating.

Elimination (打立出局) re-seating as the field shrinks: ``rebalance`` keeps as many tables as the field
can fill (those with the most players left; ties: the lower table number) with their players where
they sit, breaks the others and moves their players (those who sat out the last hand first, then by
the order; someone with no avoid pair at that table first) into the empty seats; who cannot be
placed sits out the next hand.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from apps.engine.shuffle import words

SEARCH_WORK = 12_000_000  # exhaustive search budget per attempt: nodes x players (200k nodes at 60)
REPAIR_BUDGET = 2_000_000  # swap evaluations of the repair
BYE_SWAP_TRIES = 4  # players of broken avoid pairs tried as the bye instead


@dataclass
class Seating:
    tables: list[list[int]]
    byes: list[int]
    repeats: int = 0
    avoid_broken: int = 0
    order: list[int] = field(default_factory=list)
    method: str = "cut"  # cut | repaired | search | rebalance
    spread: int = 0  # sum over tables of (lowest place - highest place) in ``order``
    moved: list[int] = field(default_factory=list)  # rebalance only: players who changed table


def round_seed(seed: bytes, round_no: int) -> bytes:
    """The seed a round's shuffle uses: the match seed for round 1, a hash of it after."""
    if not isinstance(seed, bytes | bytearray) or len(seed) == 0:
        raise ValueError("a match seed is a non-empty byte string")
    if round_no < 1:
        raise ValueError("rounds are numbered from 1")
    if round_no == 1:
        return bytes(seed)
    return hashlib.sha256(bytes(seed) + b"round" + round_no.to_bytes(4, "big")).digest()


def _uniform(stream, n: int) -> int:
    limit = 2**32 - (2**32 % n)
    w = next(stream)
    while w >= limit:
        w = next(stream)
    return w % n


def _fisher_yates(items: list, stream) -> list:
    for i in range(len(items) - 1, 0, -1):
        j = _uniform(stream, i + 1)
        items[i], items[j] = items[j], items[i]
    return items


def shuffle_players(players: Iterable[int], seed: bytes) -> list[int]:
    """User ids sorted ascending, then shuffled with the §11.7 word stream of ``seed``."""
    return _fisher_yates(sorted(players), words(bytes(seed)))


def pick_byes(order: Sequence[int], count: int, byes_had: Iterable[int] = ()) -> list[int]:
    """The ``count`` lowest placed in ``order`` without a bye yet (then the lowest placed)."""
    had = set(byes_had)
    picked: list[int] = []
    for u in reversed(order):
        if len(picked) == count:
            break
        if u not in had:
            picked.append(u)
    if len(picked) < count:
        chosen = set(picked)
        for u in reversed(order):
            if len(picked) == count:
                break
            if u not in chosen:
                picked.append(u)
    return picked


class _Costs:
    """Pair costs among one round's players: an avoid pair outweighs every possible repeat."""

    def __init__(self, players: Sequence[int], met, avoid):
        ids = set(players)
        self.avoid: dict[int, set[int]] = {u: set() for u in players}
        self.met: dict[int, set[int]] = {u: set() for u in players}
        for pairs, adj in ((avoid, self.avoid), (met, self.met)):
            for pair in pairs or ():
                if len(pair) != 2:
                    continue
                a, b = tuple(pair)
                if a in ids and b in ids:
                    adj[a].add(b)
                    adj[b].add(a)
        self.heavy = len(players) * len(players) + 1

    def pair(self, a: int, b: int) -> int:
        return (self.heavy if b in self.avoid[a] else 0) + (1 if b in self.met[a] else 0)

    def against(self, u: int, others: Iterable[int]) -> int:
        return sum(self.pair(u, v) for v in others if v != u)

    def table(self, members: Sequence[int]) -> int:
        return sum(self.pair(a, b) for i, a in enumerate(members) for b in members[i + 1 :])

    def counts(self, tables: Sequence[Sequence[int]]) -> tuple[int, int]:
        avoid_broken = repeats = 0
        for t in tables:
            for i, a in enumerate(t):
                for b in t[i + 1 :]:
                    avoid_broken += b in self.avoid[a]
                    repeats += b in self.met[a]
        return avoid_broken, repeats


def _repair(tables: list[list[int]], pos: dict[int, int], order: Sequence[int], costs: _Costs) -> int:
    """Swap players between tables while the total cost falls; returns the final total cost."""
    table_of = {u: t for t, members in enumerate(tables) for u in members}
    tcost = [costs.table(t) for t in tables]
    n = len(order)
    evaluations = 0
    improved = True
    while improved and evaluations < REPAIR_BUDGET:
        improved = False
        for ta in range(len(tables)):
            if tcost[ta] == 0:
                continue
            a_members = tables[ta]
            bad = [u for u in a_members if costs.against(u, a_members)]
            bad.sort(key=lambda u: -pos[u])  # the lower placed of a broken pair moves first
            for x in bad:
                a_rest = [u for u in tables[ta] if u != x]
                x_here = costs.against(x, a_rest)
                if x_here == 0:
                    continue
                done = False
                p = pos[x]
                for k in range(1, n):
                    for q in (p + k, p - k):
                        if not 0 <= q < n:
                            continue
                        y = order[q]
                        tb = table_of.get(y)
                        if tb is None or tb == ta:
                            continue
                        evaluations += 1
                        b_rest = [u for u in tables[tb] if u != y]
                        delta = (
                            costs.against(y, a_rest)
                            - x_here
                            + costs.against(x, b_rest)
                            - costs.against(y, b_rest)
                        )
                        if delta < 0:
                            tables[ta] = a_rest + [y]
                            tables[tb] = b_rest + [x]
                            table_of[x], table_of[y] = tb, ta
                            tcost[ta] = costs.table(tables[ta])
                            tcost[tb] = costs.table(tables[tb])
                            improved = done = True
                            break
                    if done or (p + k >= n and p - k < 0):
                        break
                if done:
                    break  # re-read this table's members
    return sum(tcost)


class _Exhausted(Exception):
    pass


def _mix(u: int, attempt: int) -> int:
    """A fixed scramble of a user id per restart (deterministic tie-breaking, never ``random``)."""
    return int.from_bytes(hashlib.sha256(f"{attempt}:{u}".encode()).digest()[:8], "big")


def _search(order: Sequence[int], table_size: int, bad: dict[int, set[int]], budget: int):
    """Search for a partition with no ``bad`` pair at a table; None if there is none or the budget
    (nodes) ran out. Restarts with doubling node limits: the first attempt breaks ties by the
    order (table-mates nearest in it first), later ones by a fixed scramble of the ids, which keeps
    one unlucky early choice from eating the whole budget. An attempt that ends within its limit
    was exhaustive: then there is no such seating."""
    spent, limit, attempt = 0, 2000, 0
    while spent < budget:
        cap = min(limit, budget - spent)
        found, used, cut_off = _search_once(order, table_size, bad, cap, attempt)
        if found is not None:
            return found
        if not cut_off:
            return None  # the whole tree was searched: none exists
        spent, limit, attempt = spent + used, limit * 2, attempt + 1
    return None


def _search_once(order, table_size, bad, budget, attempt):
    """One depth-first attempt: most constrained player first, then his most constrained possible
    table-mates; forward checking (every unseated player keeps enough possible table-mates)."""
    pos = {u: i for i, u in enumerate(order)}
    unseated = set(order)
    ok = {u: {v for v in order if v != u and v not in bad[u]} for u in order}
    cnt = {u: len(ok[u]) for u in order}
    need = table_size - 1
    if any(c < need for c in cnt.values()):
        return None, 0, False
    tie = pos if attempt == 0 else {u: _mix(u, attempt) for u in order}
    tables: list[list[int]] = []
    nodes = 0

    def seat(members) -> bool:
        """Seat them; False when some unseated player is left with too few possible table-mates."""
        for m in members:
            unseated.discard(m)
        fine = True
        for m in members:
            for w in ok[m]:
                if w in unseated:
                    cnt[w] -= 1
                    if cnt[w] < need:
                        fine = False
        return fine

    def unseat(members):
        for m in members:
            for w in ok[m]:
                if w in unseated:
                    cnt[w] += 1
        for m in members:
            unseated.add(m)

    def combos(cands, k, start, chosen):
        if k == 0:
            yield list(chosen)
            return
        for i in range(start, len(cands)):
            c = cands[i]
            if all(c in ok[m] for m in chosen):
                chosen.append(c)
                yield from combos(cands, k - 1, i + 1, chosen)
                chosen.pop()

    def solve() -> bool:
        nonlocal nodes
        if not unseated:
            return True
        pivot = min(unseated, key=lambda u: (cnt[u], tie[u]))
        p = pos[pivot]
        if attempt == 0:
            key = lambda v: (cnt[v], abs(pos[v] - p), pos[v])  # noqa: E731
        else:
            key = lambda v: (cnt[v], tie[v])  # noqa: E731
        cands = sorted((v for v in ok[pivot] if v in unseated), key=key)
        for mates in combos(cands, need, 0, []):
            nodes += 1
            if nodes > budget:
                raise _Exhausted
            members = [pivot, *mates]
            if seat(members):
                tables.append(members)
                if solve():
                    return True
                tables.pop()
            unseat(members)
        return False

    try:
        found = solve()
    except _Exhausted:
        return None, nodes, True
    return (tables if found else None), nodes, False


def _spread(tables: Sequence[Sequence[int]], pos: dict[int, int]) -> int:
    return sum(max(pos[u] for u in t) - min(pos[u] for u in t) for t in tables if t)


def _seat(order: Sequence[int], byes: Sequence[int], table_size: int, costs: _Costs):
    """Cut, repair, search (steps 3–4): (tables, method, total cost) for the non-bye players."""
    bye_set = set(byes)
    seated = [u for u in order if u not in bye_set]
    pos = {u: i for i, u in enumerate(seated)}
    tables = [seated[i : i + table_size] for i in range(0, len(seated), table_size)]
    total = sum(costs.table(t) for t in tables)
    if not total:
        return tables, "cut", 0
    total = _repair(tables, pos, seated, costs)
    if not total:
        return tables, "repaired", 0
    # Stuck: look for a seating with no broken pair at all, then with no broken avoid pair.
    both = {u: costs.avoid[u] | costs.met[u] for u in seated}
    budget = SEARCH_WORK // max(60, len(seated))
    found = _search(seated, table_size, both, budget)
    if found is None and total >= costs.heavy:
        found = _search(seated, table_size, costs.avoid, budget)
        if found is not None:
            _repair(found, pos, seated, costs)
    if found is not None:
        found_total = sum(costs.table(t) for t in found)
        if found_total < total:
            return found, "search", found_total
    return tables, "repaired", total


def seat_round(
    players: Sequence[int],
    *,
    table_size: int,
    seed: bytes,
    round_no: int,
    met: set[frozenset[int]] | None = None,
    avoid: set[frozenset[int]] | None = None,
    byes_had: set[int] | None = None,
    by_standings: bool,
) -> Seating:
    """Seat one round (see the module docstring). ``players`` in standings order, best first."""
    if isinstance(table_size, bool) or not isinstance(table_size, int) or not 2 <= table_size <= 4:
        raise ValueError("a table has 2, 3 or 4 seats")
    players = list(players)
    if len(set(players)) != len(players):
        raise ValueError("a player is seated once")
    if len(players) < table_size:
        raise ValueError(f"a round needs at least {table_size} players")
    rseed = round_seed(seed, round_no)
    order = list(players) if by_standings else shuffle_players(players, rseed)
    byes = pick_byes(order, len(order) % table_size, byes_had or ())
    costs = _Costs(order, met or (), avoid or ())
    tables, method, total = _seat(order, byes, table_size, costs)
    if total >= costs.heavy and byes:
        # The byes themselves may be what forces an avoid pair together (e.g. one table left):
        # give the bye instead to a player of a broken pair (lowest placed, no bye yet, first).
        had = byes_had or set()
        for _ in range(3):
            rank = {u: i for i, u in enumerate(order)}
            broken = sorted(
                {u for t in tables for u in t if any(v in costs.avoid[u] for v in t if v != u)},
                key=lambda u: (u in had, -rank[u]),
            )
            better = None
            for x in broken[:BYE_SWAP_TRIES]:
                for b in byes:
                    trial = [x if u == b else u for u in byes]
                    attempt = _seat(order, trial, table_size, costs)
                    if attempt[2] < total and (better is None or attempt[2] < better[1][2]):
                        better = (trial, attempt)
                if better is not None:
                    break
            if better is None:
                break
            byes, (tables, method, total) = better[0], better[1]
            if total < costs.heavy:
                break
    seated = [u for u in order if u not in set(byes)]
    pos = {u: i for i, u in enumerate(seated)}

    for t in tables:
        t.sort(key=pos.__getitem__)
    tables.sort(key=lambda t: pos[t[0]])
    if by_standings:
        stream = words(rseed)
        tables = [_fisher_yates(list(t), stream) for t in tables]
    avoid_broken, repeats = costs.counts(tables)
    return Seating(
        tables=tables,
        byes=byes,
        repeats=repeats,
        avoid_broken=avoid_broken,
        order=order,
        method=method,
        spread=_spread(tables, pos),
    )


def rebalance(
    tables: Sequence[Sequence[int]],
    out: Iterable[int],
    *,
    table_size: int,
    order: Sequence[int],
    waiting: Sequence[int] = (),
    avoid: set[frozenset[int]] | None = None,
) -> Seating:
    """Re-seat an elimination field after players went out (see the module docstring).

    ``tables``: the current tables (index = table number); ``out``: players now out; ``waiting``:
    players who sat out the last hand; ``order``: the standings order of everyone remaining.
    Returns the new tables (kept tables keep their index and their players' seats; broken tables
    disappear), who sits out (``byes``) and who moved.
    """
    gone = set(out)
    current = [[u for u in t if u not in gone] for t in tables]
    wait = [u for u in waiting if u not in gone]
    remaining = sum(len(t) for t in current) + len(wait)
    if remaining == 0:
        return Seating(tables=[], byes=[], method="rebalance", order=list(order))
    target = max(1, remaining // table_size)
    target = min(target, len(current)) if current else 0
    by_size = sorted(range(len(current)), key=lambda i: (-len(current[i]), i))
    kept = sorted(by_size[:target])
    broken = [i for i in range(len(current)) if i not in set(kept)]
    rank = {u: i for i, u in enumerate(order)}
    pool = wait + sorted((u for i in broken for u in current[i]), key=lambda u: (rank.get(u, len(rank)), u))
    costs = _Costs([u for t in current for u in t] + wait, (), avoid or ())
    new_tables = [list(current[i]) for i in kept]
    moved: list[int] = []
    for t in new_tables:
        while len(t) < table_size and pool:
            pick = next((u for u in pool if costs.against(u, t) == 0), pool[0])
            pool.remove(pick)
            t.append(pick)
            moved.append(pick)
    avoid_broken, repeats = costs.counts(new_tables)
    return Seating(
        tables=new_tables,
        byes=pool,
        repeats=repeats,
        avoid_broken=avoid_broken,
        order=list(order),
        method="rebalance",
        moved=moved,
    )


def describe_recompute(*, seed_hex: str = "", table_size: int = 3, language: str = "en") -> str:
    """How anyone recomputes round 1 from the revealed seed (text for the match page)."""
    cmd = f"python -m apps.matches.seating --recompute {seed_hex or '<seed>'} --players <ids> --table-size {table_size}"
    if language.startswith("zh"):
        return (
            "第一轮座位由报名截止时公布 sha256 的种子决定，种子在排座后公开。"
            "验证方法：先核对 sha256(种子) 与公布值一致；把参赛者的用户编号从小到大排列，"
            "用 RULES.md §11.7 的洗牌算法（与发牌相同的 sha256 字流、拒绝采样的 Fisher–Yates）打乱，"
            f"按顺序每 {table_size} 人一桌；人数不能整除时最后几位轮空。"
            "若有“不同桌”名单（同 IP 或管理员指定）或已同桌过的选手，会在此基础上做最少的交换，"
            f"页面会标明。命令：{cmd}"
        )
    return (
        "Round 1 is seated from a seed whose sha256 was published when registration closed; the seed "
        "is revealed after seating. To check it: verify sha256(seed) against the published value, sort "
        "the entrants' user ids ascending, shuffle them with the algorithm of RULES.md §11.7 (the same "
        "sha256 word stream and rejection-sampled Fisher–Yates as the deal), and cut the result into "
        f"tables of {table_size} in order; when the count does not divide, the last players get byes. "
        "When a never-at-one-table pair (shared IP address, or the club's list) would share a table, a "
        f"few swaps repair it, and the page says so. Command: {cmd}"
    )


# Command line: recompute a round 1, or time a 300-player round. -----------------------------------


def _bench(n: int, rounds: int, table_size: int, avoid_pairs: int | None = None) -> list[dict]:
    import random  # the benchmark's made-up standings only; seating itself never uses random

    rng = random.Random(n)
    players = list(range(1, n + 1))
    count = n // 10 if avoid_pairs is None else avoid_pairs
    avoid = {frozenset(rng.sample(players, 2)) for _ in range(count)}
    met: set[frozenset[int]] = set()
    byes_had: set[int] = set()
    points = dict.fromkeys(players, 0)
    seed = hashlib.sha256(b"bench").digest()
    figures = []
    for r in range(1, rounds + 1):
        standings = sorted(players, key=lambda u: (-points[u], u))
        t0 = time.perf_counter()
        s = seat_round(
            standings, table_size=table_size, seed=seed, round_no=r, met=met, avoid=avoid,
            byes_had=byes_had, by_standings=r > 1,
        )
        ms = (time.perf_counter() - t0) * 1000
        figures.append({"round": r, "players": n, "tables": len(s.tables), "ms": round(ms, 1),
                        "repeats": s.repeats, "avoid_broken": s.avoid_broken, "method": s.method})
        for t in s.tables:
            for i, a in enumerate(t):
                for b in t[i + 1 :]:
                    met.add(frozenset((a, b)))
            for rank, u in enumerate(sorted(t, key=lambda _u: rng.random())):
                points[u] += (table_size - rank) * 2
        byes_had.update(s.byes)
    return figures


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m apps.matches.seating", description=__doc__.splitlines()[0])
    parser.add_argument("--recompute", metavar="SEED_HEX", help="recompute round 1 from the revealed seed")
    parser.add_argument("--players", help="comma-separated user ids of the entrants")
    parser.add_argument("--table-size", type=int, default=3)
    parser.add_argument("--bench", type=int, metavar="N", help="time seating N players")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--avoid", type=int, default=None, help="--bench: random avoid pairs (default N/10)")
    args = parser.parse_args(argv)
    if args.bench:
        import json

        for fig in _bench(args.bench, args.rounds, args.table_size, args.avoid):
            print(json.dumps(fig))
        return 0
    if args.recompute:
        if not args.players:
            parser.error("--recompute needs --players")
        seed = bytes.fromhex(args.recompute)
        ids = [int(x) for x in args.players.split(",") if x.strip()]
        s = seat_round(ids, table_size=args.table_size, seed=seed, round_no=1, by_standings=False)
        for i, t in enumerate(s.tables, 1):
            print(f"table {i}: {' '.join(map(str, t))}")
        if s.byes:
            print(f"byes: {' '.join(map(str, s.byes))}")
        return 0
    parser.print_help()
    return 2


if __name__ == "__main__":
    sys.exit(main())
