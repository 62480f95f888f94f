"""Random candidate-win score requests for ``bench --vectors`` (deterministic from a seed).

    python tests/engine/bench_vectors.py --seed 1 --count 1000 --out /tmp/vectors.json

Each request is a "legal-looking" final position: random laid groups and hand groups (respecting
4 copies per card), one hand card taken out as the winning card, a random ``win_by``. About 40% are
then spoiled (a hand card swapped for a random one) so the mix holds winning and non-winning
candidates, as the state machine sees them. Every request is valid input (never ``bad_input``).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from apps.engine.cards import card_name  # noqa: E402

PRESETS = ("basic", "half", "full", "changsha", "quanmin", "chenzhou", "luzhou")
SENTENCES = [tuple(b + r + i for i in range(3)) for b in (0, 10) for r in range(8)] + [(1, 6, 9), (11, 16, 19)]
JIAOS = [(r, r, r + 10) for r in range(10)] + [(r, r + 10, r + 10) for r in range(10)]


def _take(counts: list[int], cards: tuple[int, ...]) -> bool:
    need: dict[int, int] = {}
    for c in cards:
        need[c] = need.get(c, 0) + 1
    if any(counts[c] + n > 4 for c, n in need.items()):
        return False
    for c, n in need.items():
        counts[c] += n
    return True


def _group(rng: random.Random, counts: list[int], kinds: tuple[str, ...]) -> tuple[str, tuple[int, ...]] | None:
    for _ in range(20):
        kind = rng.choice(kinds)
        if kind in ("sentence", "chi"):
            cards = rng.choice(SENTENCES + JIAOS if kind == "chi" else SENTENCES + SENTENCES + JIAOS)
            kind = "chi" if kind == "chi" else ("jiao" if cards in JIAOS else "sentence")
        else:
            card = rng.randrange(20)
            cards = (card,) * (4 if kind in ("ti", "pao") else 2 if kind == "jiang" else 3)
        if _take(counts, cards):
            return kind, cards
    return None


def make_request(rng: random.Random) -> dict | None:
    preset = rng.choice(PRESETS)
    counts = [0] * 20
    laid: list[tuple[str, tuple[int, ...]]] = []
    for _ in range(rng.choice((0, 1, 2, 2, 3, 3, 4, 5))):
        g = _group(rng, counts, ("ti", "pao", "wei", "peng", "chi", "chi"))
        if g:
            laid.append(g)
    hand: list[int] = []
    has_four = any(k in ("ti", "pao") for k, _ in laid)
    for _ in range(7 - len(laid) - has_four):  # the 将 is the seventh group when there is a 4-card group
        g = _group(rng, counts, ("sentence", "sentence", "kan"))
        if g is None:
            return None
        hand.extend(g[1])
    if has_four:
        g = _group(rng, counts, ("jiang",))
        if g is None:
            return None
        hand.extend(g[1])
    rng.shuffle(hand)
    win_card = hand.pop()
    if rng.random() < 0.4:  # spoil it
        i = rng.randrange(len(hand))
        hand[i] = rng.randrange(20)
    total = [0] * 20
    for c in hand + [win_card] + [c for _, cards in laid for c in cards]:
        total[c] += 1
    held = [hand.count(c) for c in range(20)]
    if max(total) > 4 or max(held) >= 4:
        return None
    win_by = rng.choice(("self_draw", "self_draw", "other_draw") + (("discard",) if preset == "chenzhou" else ()))
    return {
        "preset": preset,
        "options": {},
        "players": 3,
        "hand": [card_name(c) for c in hand],
        "groups": [{"kind": k, "cards": [card_name(c) for c in cards]} for k, cards in laid],
        "win_card": card_name(win_card),
        "win_by": win_by,
        "dealer": rng.random() < 0.33,
        "last_card": rng.random() < 0.05,
        "reveal_card": card_name(rng.randrange(20)),
    }


def make_vectors(seed: int, count: int) -> list[dict]:
    """``count`` requests, the same for the same seed."""
    rng = random.Random(seed)
    out: list[dict] = []
    while len(out) < count:
        req = make_request(rng)
        if req is not None:
            out.append(req)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--out", default="-")
    args = parser.parse_args(argv)
    text = json.dumps(make_vectors(args.seed, args.count))
    if args.out == "-":
        sys.stdout.write(text + "\n")
    else:
        Path(args.out).write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
