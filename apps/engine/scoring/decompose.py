"""Decomposition of the free hand cards into sentences, 绞 and at most one 将 (RULES.md §8.1).

"Free" cards are the hidden cards left once every 坎 (and, at a reveal or natural win, every four of
a kind) has been set aside: a 坎 is never split (§4.1), so the free cards hold no group of three
identical cards. What remains can only form:

- sentences (一句话) inside one case: 8 runs of three consecutive ranks, plus 二七十;
- 绞: three cards of one rank in mixed cases (2 small + 1 big, or 1 small + 2 big);
- one pair (将), when the winning hand has a four-card group.

Only 绞 join the two cases, so the search enumerates the 绞 (few: a rank needs both cases) and then
splits each case on its own with a cached table keyed by the case's 10 rank counts. Results are
memoised per count vector for the whole process: the scorer meets the same vectors again and again.
"""

from __future__ import annotations

import time
from functools import lru_cache
from itertools import product

from .huxi import SENTENCE_PATTERNS

# One case's split: (sorted pattern ids, pair rank or -1).
CaseSplit = tuple[tuple[int, ...], int]
# A free decomposition: (绞 as (rank, n_small_small_big, n_small_big_big) per rank, small split, big split).
FreeSplit = tuple[tuple[tuple[int, int, int], ...], CaseSplit, CaseSplit]

_NO_SPLIT: CaseSplit = ((), -1)


@lru_cache(maxsize=1 << 18)
def case_splits(counts: tuple[int, ...], with_pair: bool) -> tuple[CaseSplit, ...]:
    """Every split of one case's rank counts into sentence patterns (and exactly one pair if asked).

    >>> case_splits((1, 1, 1, 0, 0, 0, 0, 0, 0, 0), False)
    (((0,), -1),)
    >>> case_splits((0, 2, 0, 0, 0, 0, 0, 0, 0, 0), True)
    (((), 1),)
    """
    total = sum(counts)
    if total % 3 != (2 if with_pair else 0):
        return ()
    if total == 0:
        return (_NO_SPLIT,)
    r = next(i for i, n in enumerate(counts) if n)
    out: set[CaseSplit] = set()
    if with_pair and counts[r] >= 2:
        rest = list(counts)
        rest[r] -= 2
        for patterns, _ in case_splits(tuple(rest), False):
            out.add((patterns, r))
    for pattern_id, pattern in _PATTERNS_FROM[r]:
        if all(counts[x] for x in pattern):
            rest = list(counts)
            for x in pattern:
                rest[x] -= 1
            for patterns, pair in case_splits(tuple(rest), with_pair):
                out.add((tuple(sorted(patterns + (pattern_id,))), pair))
    return tuple(sorted(out))


# Patterns whose lowest rank is r (the lowest card present must start one of them).
_PATTERNS_FROM: tuple[tuple[tuple[int, tuple[int, int, int]], ...], ...] = tuple(
    tuple((i, p) for i, p in enumerate(SENTENCE_PATTERNS) if p[0] == r) for r in range(10)
)


def _jiao_options(small: int, big: int) -> list[tuple[int, int]]:
    """(ssb, sbb) 绞 counts possible at one rank with these counts of the small and big card."""
    return [(x, y) for x in range(small // 2 + 1) for y in range(big // 2 + 1) if 2 * x + y <= small and x + 2 * y <= big]


def _jiao_cuts(free: tuple[int, ...]) -> list[tuple[tuple[tuple[int, int, int], ...], tuple[int, ...], tuple[int, ...]]]:
    """Every choice of 绞, with the small and big rank counts left after it."""
    ranks = [r for r in range(10) if free[r] and free[r + 10] and free[r] + free[r + 10] >= 3]
    if not ranks:
        return [((), free[:10], free[10:])]
    out = []
    choices = [[(r, x, y) for x, y in _jiao_options(free[r], free[r + 10])] for r in ranks]
    for combo in product(*choices):
        small = list(free[:10])
        big = list(free[10:])
        for r, x, y in combo:
            small[r] -= 2 * x + y
            big[r] -= x + 2 * y
        out.append((tuple(j for j in combo if j[1] or j[2]), tuple(small), tuple(big)))
    return out


_PAIR_SIDES = {True: ((True, False), (False, True)), False: ((False, False),)}


@lru_cache(maxsize=1 << 18)
def free_splits(free: tuple[int, ...], need_jiang: bool) -> tuple[FreeSplit, ...]:
    """Every complete decomposition of the 20 free counts (exactly one 将 iff ``need_jiang``)."""
    if sum(free) % 3 != (2 if need_jiang else 0):
        return ()
    out: list[FreeSplit] = []
    for jiaos, st, bt in _jiao_cuts(free):
        for small_pair, big_pair in _PAIR_SIDES[need_jiang]:
            big_splits = case_splits(bt, big_pair)
            if big_splits:
                out.extend((jiaos, s, b) for s in case_splits(st, small_pair) for b in big_splits)
    return tuple(out)


def split_huxi(split: FreeSplit, weights: tuple[tuple[int, ...], tuple[int, ...]]) -> int:
    """胡息 of a free decomposition (only 一二三 and 二七十 sentences score)."""
    small_w, big_w = weights
    return sum(small_w[p] for p in split[1][0]) + sum(big_w[p] for p in split[2][0])


@lru_cache(maxsize=1 << 18)
def _case_best(counts: tuple[int, ...], with_pair: bool, weights: tuple[int, ...]) -> tuple[int, CaseSplit] | None:
    best: tuple[int, CaseSplit] | None = None
    for split in case_splits(counts, with_pair):
        h = sum(weights[p] for p in split[0])
        if best is None or h > best[0]:
            best = (h, split)
    return best


@lru_cache(maxsize=1 << 18)
def best_free(
    free: tuple[int, ...], need_jiang: bool, weights: tuple[tuple[int, ...], tuple[int, ...]]
) -> tuple[int, FreeSplit] | None:
    """The highest-胡息 complete decomposition of the free counts, or None."""
    if sum(free) % 3 != (2 if need_jiang else 0):
        return None
    small_w, big_w = weights
    best: tuple[int, FreeSplit] | None = None
    for jiaos, st, bt in _jiao_cuts(free):
        for small_pair, big_pair in _PAIR_SIDES[need_jiang]:
            if sum(st) % 3 != (2 if small_pair else 0):
                continue
            b = _case_best(bt, big_pair, big_w)
            if b is None:
                continue
            s = _case_best(st, small_pair, small_w)
            if s is not None and (best is None or s[0] + b[0] > best[0]):
                best = (s[0] + b[0], (jiaos, s[1], b[1]))
    return best


def split_groups(split: FreeSplit) -> list[tuple[str, tuple[int, ...]]]:
    """The (kind, cards) groups of a free decomposition."""
    jiaos, small, big = split
    out: list[tuple[str, tuple[int, ...]]] = []
    for r, x, y in jiaos:
        out.extend([("jiao", (r, r, r + 10))] * x)
        out.extend([("jiao", (r, r + 10, r + 10))] * y)
    for base, (patterns, pair) in ((0, small), (10, big)):
        out.extend(("sentence", tuple(base + x for x in SENTENCE_PATTERNS[p])) for p in patterns)
        if pair >= 0:
            out.append(("jiang", (base + pair, base + pair)))
    return out


# ---- natural win: groups plus cards left over (RULES.md §3.3) ----------------------------------

Partial = tuple[tuple[tuple[str, tuple[int, ...]], ...], tuple[int, ...]]


@lru_cache(maxsize=1024)
def partial_decompositions(free: tuple[int, ...], jiang_allowed: bool) -> tuple[Partial, ...]:
    """Every way to take sentences, 绞 and at most one 将 out of the free cards, the rest left over.

    Used for natural wins, where "the 7-group requirement does not apply" and left-over cards
    score 0. Returns (groups, leftover cards) pairs.
    """
    if not any(free):
        return (((), ()),)
    c = next(i for i, n in enumerate(free) if n)
    out: set[Partial] = set()

    def take(cards: tuple[int, ...], kind: str | None, jiang_left: bool) -> None:
        rest = list(free)
        for x in cards:
            if rest[x] <= 0:
                return
            rest[x] -= 1
        for groups, left in partial_decompositions(tuple(rest), jiang_left):
            if kind is None:
                out.add((groups, tuple(sorted(left + cards))))
            else:
                out.add((tuple(sorted(groups + ((kind, cards),))), left))

    take((c,), None, jiang_allowed)
    if jiang_allowed:
        take((c, c), "jiang", False)
    base, r = (c // 10) * 10, c % 10
    for pattern in SENTENCE_PATTERNS:
        if pattern[0] == r:
            take(tuple(base + x for x in pattern), "sentence", jiang_allowed)
    if c < 10:
        take((c, c, c + 10), "jiao", jiang_allowed)
        take((c, c + 10, c + 10), "jiao", jiang_allowed)
    return tuple(sorted(out))


# ---- the fast path: packed count vectors and precomputed case tables ---------------------------
#
# A count vector is packed into one int, 8 bits per card kind (kind c at bit 8c): a case (10 ranks)
# is an 80-bit int. Every case vector that splits into sentences (``CASE_SENT``), or into sentences
# plus exactly one pair (``CASE_PAIR``), with at most 3 of a rank, is listed once at import (about
# 2,600 and 10,000 vectors, ~15 ms): a vector missing from the table does not split.
# A sentence-only split is unique (given its 二七十 count the runs are forced, and that count is
# checked unique here), so an entry is (一二三 count, 二七十 count, pattern counts) — the pattern
# counts packed 4 bits per pattern id, for 比 — and a pair entry lists one such triple per pair rank.

FIELD = 8
B7 = sum(0x80 << (FIELD * r) for r in range(10))  # the top bit of each of 10 fields
ADD_GE1 = sum(0x7F << (FIELD * r) for r in range(10))  # field + 0x7F has its top bit set iff field >= 1
ADD_GE3 = sum(0x7D << (FIELD * r) for r in range(10))  # ... iff field >= 3
M80 = (1 << (FIELD * 10)) - 1
_PATTERN_INTS = tuple(sum(1 << (FIELD * x) for x in p) for p in SENTENCE_PATTERNS)
_OVER3 = sum(4 << (FIELD * r) for r in range(10))
NIBBLES = sum(1 << (4 * p) for p in range(9))
PATTERN_YI, PATTERN_EQS = 0, 8

CaseEntry = tuple[int, int, int]  # (一二三 count, 二七十 count, pattern counts packed by 4 bits)


# What the 胡息 of a case split depends on, as a small int: only 一二三 and 二七十 score, so a split
# is summed up by ``yi + 8 * eqs`` (its counts of each, at most 3 in a case). ``SENT_CODE`` gives it
# for the sentence-only split of a case vector; ``PAIR_CODE`` the same for the splits with a pair,
# or, when they differ, 32 + the index of their set in ``PAIR_SETS``. ``code_values(weights)``
# turns either into 胡息 for one case of one 胡息 table (a tuple: one index in the hot loops).
_CODES = 32


def _code(m: int) -> int:
    return (m & 15) + 8 * ((m >> 32) & 15)


def code_values(yi: int, eqs: int) -> tuple[int, ...]:
    """胡息 by code (``SENT_CODE``/``PAIR_CODE``) for a case where 一二三 scores ``yi`` and 二七十 ``eqs``."""
    plain = [(c & 7) * yi + (c >> 3) * eqs for c in range(_CODES)]
    return tuple(plain + [max(plain[c] for c in codes) for codes in PAIR_SETS])


def _build_case_tables() -> tuple[dict[int, CaseEntry], dict[int, list[tuple[CaseEntry, int]]], dict[int, int], dict[int, int], list]:
    """Breadth first over the number of sentences. Uniqueness of a sentence-only split is what
    ``tests/engine/test_scoring_reference.py`` checks against ``case_splits`` (not re-checked here:
    this runs at every import). Also the codes of the splits (``SENT_CODE``, ``PAIR_CODE``)."""
    sent: dict[int, int] = {0: 0}
    layer = {0: 0}
    steps = tuple(zip(_PATTERN_INTS, [1 << (4 * i) for i in range(9)], strict=True))
    over = _OVER3
    for _ in range(7):  # at most 7 groups in a hand
        nxt: dict[int, int] = {}
        for v, m in layer.items():
            for pk, dm in steps:
                if not (v + pk) & over:
                    nxt[v + pk] = m + dm
        sent.update(nxt)
        layer = nxt
    entries = {v: (m & 15, (m >> 32) & 15, m) for v, m in sent.items()}
    codes = {v: (m & 15) + 8 * ((m >> 32) & 15) for v, m in sent.items()}  # as ``_code``
    pair: dict[int, list[tuple[CaseEntry, int]]] = {}
    pair_codes: dict[int, int] = {}
    sets: dict[tuple[int, ...], int] = {}  # sets of codes (sorted) → their PAIR_CODE
    adds = [(r, 2 << (FIELD * r)) for r in range(10)]
    for v, e in entries.items():
        code = codes[v]
        for r, add in adds:
            if not (v + add) & over:
                x = v + add
                if x in pair:
                    pair[x].append((e, r))
                    if pair_codes[x] != code:  # a second code for x: x's codes are a set
                        old = pair_codes[x]
                        key = tuple(sorted({code, *(_codes_of(sets, old))}))
                        if key not in sets:
                            sets[key] = _CODES + len(sets)
                        pair_codes[x] = sets[key]
                else:
                    pair[x] = [(e, r)]
                    pair_codes[x] = code
    return entries, pair, codes, pair_codes, list(sets)


def _codes_of(sets: dict[tuple[int, ...], int], code: int) -> tuple[int, ...]:
    """The codes a PAIR_CODE stands for, while ``sets`` is being built."""
    if code < _CODES:
        return (code,)
    return next(key for key, value in sets.items() if value == code)


_start = time.perf_counter()
CASE_SENT, CASE_PAIR, SENT_CODE, PAIR_CODE, PAIR_SETS = _build_case_tables()

# 绞 at one rank with a small and b big cards: the (small used, big used) choices, (0, 0) first.
JIAO_USES: dict[tuple[int, int], tuple[tuple[int, int], ...]] = {
    (a, b): tuple((2 * x + y, x + 2 * y) for x, y in _jiao_options(a, b)) for a in range(5) for b in range(5)
}
# The same per rank, as they change the packed cases, grouped by the small cards they take mod 3:
# JIAO_AT[rank][5 * a + b][d] lists (small cards taken, big cards taken), packed, taking d mod 3.
_BY_TAKEN = [[[(ds, db) for ds, db in JIAO_USES[(a, b)] if ds % 3 == d] for d in range(3)] for a in range(5) for b in range(5)]
JIAO_AT: tuple[tuple[tuple[tuple[tuple[int, int], ...], ...], ...], ...] = tuple(
    tuple(tuple([tuple([(ds << sh, db << sh) for ds, db in uses]) for uses in by_taken]) for by_taken in _BY_TAKEN)
    for sh in range(0, 10 * FIELD, FIELD)
)


# JIAO_CHOICES[rank][5 * a + b]: JIAO_USES at that rank as (small taken, packed; big taken,
# packed; 绞 made; small taken mod 3), in the order of JIAO_USES.
_CHOICES = [[(ds, db, (ds + db) // 3, ds % 3) for ds, db in JIAO_USES[(a, b)]] for a in range(5) for b in range(5)]
JIAO_CHOICES: tuple[tuple[tuple[tuple[int, int, int, int], ...], ...], ...] = tuple(
    tuple(tuple([(ds << sh, db << sh, n, d) for ds, db, n, d in uses]) for uses in _CHOICES)
    for sh in range(0, 10 * FIELD, FIELD)
)
BUILD_SECONDS = time.perf_counter() - _start  # the tables above; reported by ``bench --vectors``


def jiao_cuts_packed(fs: int, fb: int) -> list[tuple[int, int, int, int]]:
    """Every choice of 绞 on packed cases: (small left, big left, 绞 count, all-red 绞 count)."""
    ranks = (fs + ADD_GE1) & (fb + ADD_GE1) & (fs + fb + ADD_GE3) & B7
    out = [(fs, fb, 0, 0)]
    while ranks:
        low = ranks & -ranks
        ranks ^= low
        shift = low.bit_length() - FIELD
        red = shift // FIELD in (1, 6, 9)
        uses = JIAO_USES[((fs >> shift) & 0xFF, (fb >> shift) & 0xFF)]
        out = [
            (s - (ds << shift), b - (db << shift), n + (ds + db) // 3, nr + red * ((ds + db) // 3))
            for s, b, n, nr in out
            for ds, db in uses
        ]
    return out




def best_free_packed(fs: int, fb: int, need_jiang: bool, vs: tuple[int, ...], vb: tuple[int, ...]) -> int:
    """The highest 胡息 of a complete split of the free cards (packed cases), -1 if none.

    ``vs``/``vb``: 胡息 by code for the small/big case (``code_values``).
    """
    ranks = (fs + ADD_GE1) & (fb + ADD_GE1) & (fs + fb + ADD_GE3) & B7
    if ranks:
        return best_with_jiao(fs, fb, need_jiang, ranks, vs, vb)
    return best_plain(fs, fb, need_jiang, vs, vb)


def best_plain(fs: int, fb: int, need_jiang: bool, vs: tuple[int, ...], vb: tuple[int, ...]) -> int:
    """``best_free_packed`` when no 绞 is possible: one look-up per case. The small case's card
    count mod 3 (``fs % 3``: 256 is 1 mod 3) says where the 将 goes: 0 the big case, 2 the small."""
    side = fs % 3
    if side == 0:
        a = SENT_CODE.get(fs)
        if a is None:
            return -1
        b = (PAIR_CODE if need_jiang else SENT_CODE).get(fb)
    elif side == 2 and need_jiang:
        a = PAIR_CODE.get(fs)
        if a is None:
            return -1
        b = SENT_CODE.get(fb)
    else:
        return -1
    if b is None:
        return -1
    return vs[a] + vb[b]


def best_with_jiao(fs: int, fb: int, need_jiang: bool, ranks: int, vs: tuple[int, ...], vb: tuple[int, ...]) -> int:
    """``best_free_packed`` when ``ranks`` (top bits of the fields, ``B7``) may hold 绞. Every choice
    of 绞 is tried, but only those leaving the small case a card count that can split are looked
    up: 0 mod 3 (the 将, if any, in the big case), or 2 mod 3 with the 将 in the small case."""
    cuts = [(fs, fb, fs % 3)]
    while True:
        low = ranks & -ranks
        ranks ^= low
        shift = low.bit_length() - FIELD
        by_taken = JIAO_AT[shift >> 3][5 * ((fs >> shift) & 0xFF) + ((fb >> shift) & 0xFF)]
        if not ranks:
            break
        cuts = [(s - ds, b - db, (t - d) % 3) for s, b, t in cuts for d in (0, 1, 2) for ds, db in by_taken[d]]
    sent, pair = SENT_CODE, PAIR_CODE
    other = pair if need_jiang else sent
    best = -1
    for s, b, t in cuts:
        for ds, db in by_taken[t]:  # the small case left with 0 mod 3 cards
            x = sent.get(s - ds)
            if x is not None:
                y = other.get(b - db)
                if y is not None and vs[x] + vb[y] > best:
                    best = vs[x] + vb[y]
        if need_jiang:
            for ds, db in by_taken[(t + 1) % 3]:  # 2 mod 3: the 将 in the small case
                x = pair.get(s - ds)
                if x is not None:
                    y = sent.get(b - db)
                    if y is not None and vs[x] + vb[y] > best:
                        best = vs[x] + vb[y]
    return best


def free_shapes_packed(fs: int, fb: int, need_jiang: bool) -> list[tuple[CaseEntry, CaseEntry, int, int, int]]:
    """Every complete split of the free cards, as (small entry, big entry, pair rank + 10 × big?
    or -1, 绞 count, all-red 绞 count): what 胡息, 对对胡, 比 and 双飘 need (changsha, 毛胡).
    The choices of 绞 are those of ``jiao_cuts_packed``, in the same order; those at the last rank
    are looked at without building them, and only where the small case's card count allows a split."""
    sent, pair = CASE_SENT, CASE_PAIR
    ranks = (fs + ADD_GE1) & (fb + ADD_GE1) & (fs + fb + ADD_GE3) & B7
    cuts = [(fs, fb, fs % 3, 0, 0)]
    last: tuple[tuple[int, int, int, int], ...] = ((0, 0, 0, 0),)
    red = False
    while ranks:
        if len(last) > 1:  # the choices at the previous rank, now built
            cuts = [
                (s - ds, b - db, (t - d) % 3, n + nj, nr + red * nj)
                for s, b, t, n, nr in cuts
                for ds, db, nj, d in last
            ]
        low = ranks & -ranks
        ranks ^= low
        shift = low.bit_length() - FIELD
        red = shift // FIELD in (1, 6, 9)
        last = JIAO_CHOICES[shift // FIELD][5 * ((fs >> shift) & 0xFF) + ((fb >> shift) & 0xFF)]
    out = []
    for s0, b0, t0, n0, nr0 in cuts:
        for ds, db, nj, d in last:
            side = (t0 - d) % 3  # the small case's card count mod 3: where the 将 can be
            nr = nr0 + red * nj
            if need_jiang:
                if side == 2:
                    e = sent.get(b0 - db)
                    if e is not None:
                        out.extend((x, e, r, n0 + nj, nr) for x, r in pair.get(s0 - ds, ()))
                elif side == 0:
                    e = sent.get(s0 - ds)
                    if e is not None:
                        out.extend((e, x, 10 + r, n0 + nj, nr) for x, r in pair.get(b0 - db, ()))
            elif side == 0:
                e, f = sent.get(s0 - ds), sent.get(b0 - db)
                if e is not None and f is not None:
                    out.append((e, f, -1, n0 + nj, nr))
    return out
