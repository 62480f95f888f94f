"""The checked path into the scorer: the ``score`` and ``bench --vectors`` commands (ENGINE_CLI.md).

``run_score(text)`` reads one score request (a JSON object) or a list of them and returns the JSON
text to print and the exit status:

- an object in, an object out; a list in, a list out (same order);
- exit 0 when every request was understood (win or not a win), 2 when the text is not JSON or any
  request is ``bad_input`` (the other items of a list are still answered).

``bad_input`` covers: malformed JSON or fields, an unknown preset/option/card, a fifth copy of a card
across hand, groups and winning card, four of a kind in ``hand`` (except ``natural``/``reveal``),
``win_by = "discard"`` where the ruleset has no ``discard_win``, a malformed laid group.
"""

from __future__ import annotations

import gc
import json
import time
from functools import lru_cache
from typing import Any

from ..cards import COPIES, KINDS, parse_card
from ..groups import LAID_KINDS, Group
from ..rules import RuleError, RuleSet, resolve_ruleset
from ..scoring.fast import WIN_BY, score_win
from ..scoring.settlement import capped

ScoreArgs = tuple[RuleSet, list[int], list[Group], "int | None", str, bool, bool, "int | None"]


class BadInput(ValueError):
    """A score request that cannot be evaluated; the message says why."""


def _is_sentence(cards: tuple[int, ...]) -> bool:
    if cards[0] // 10 != cards[2] // 10:
        return False
    ranks = tuple(c % 10 for c in cards)
    return ranks == (1, 6, 9) or (ranks[1] == ranks[0] + 1 and ranks[2] == ranks[1] + 1)


def _is_jiao(cards: tuple[int, ...]) -> bool:
    return len({c % 10 for c in cards}) == 1 and len(set(cards)) == 2


def check_laid_group(group: Group) -> None:
    """BadInput unless the group is a well-formed laid group (RULES.md §4.1)."""
    cards = group.cards
    size = {"ti": 4, "pao": 4, "wei": 3, "chou_wei": 3, "peng": 3, "chi": 3}.get(group.kind)
    if size is None:
        raise BadInput(f"groups: {group.kind!r} is not a laid group kind ({', '.join(LAID_KINDS)})")
    if len(cards) != size:
        raise BadInput(f"groups: a {group.kind} has {size} cards, not {len(cards)}")
    if group.kind == "chi":
        if not (_is_sentence(cards) or _is_jiao(cards)):
            raise BadInput("groups: a chi is a sentence or a 绞 (jiao)")
    elif len(set(cards)) != 1:
        raise BadInput(f"groups: a {group.kind} is {size} identical cards")


@lru_cache(maxsize=256)
def _ruleset(preset: str, options_json: str, players: int | None) -> RuleSet:
    """Resolved rulesets, shared between requests with the same preset, options and players."""
    return resolve_ruleset(preset, json.loads(options_json), players=players)


def _card_or_none(value: object, name: str) -> int | None:
    if value is None:
        return None
    try:
        return parse_card(value)
    except ValueError as exc:
        raise BadInput(f"{name}: {exc}") from None


def _flag(data: dict, name: str) -> bool:
    value = data.get(name, False)
    if not isinstance(value, bool):
        raise BadInput(f"{name}: expected true or false")
    return value


def parse_request(data: object) -> ScoreArgs:
    """Check one score request and turn it into ``score_win`` arguments (BadInput on any fault)."""
    if not isinstance(data, dict):
        raise BadInput("expected a JSON object")
    players = data.get("players")
    if players is not None and (isinstance(players, bool) or not isinstance(players, int)):
        raise BadInput("players: expected an integer")
    options = data.get("options") or {}
    if not isinstance(options, dict):
        raise BadInput("options: expected an object")
    try:
        rs = _ruleset(str(data.get("preset", "basic")), json.dumps(options, sort_keys=True), players)
    except RuleError as exc:
        raise BadInput(str(exc)) from None
    try:
        hand = [parse_card(c) for c in _list(data.get("hand"), "hand")]
        groups = [Group.from_wire(g) for g in _list(data.get("groups", []), "groups")]
    except ValueError as exc:
        raise BadInput(str(exc)) from None
    for g in groups:
        check_laid_group(g)
    win_by = data.get("win_by")
    if win_by not in WIN_BY:
        raise BadInput(f"win_by: expected one of {', '.join(WIN_BY)}")
    win_card = _card_or_none(data.get("win_card"), "win_card")
    reveal_card = _card_or_none(data.get("reveal_card"), "reveal_card")
    dealer, last_card = _flag(data, "dealer"), _flag(data, "last_card")
    if win_by == "natural":
        if win_card is not None or groups:
            raise BadInput("natural: win_card must be null and groups empty (hand is the dealt hand)")
    elif win_card is None:
        raise BadInput(f"win_card: required for win_by {win_by}")
    if win_by == "discard" and not rs.discard_win:
        raise BadInput(f"win_by: preset {rs.preset} does not allow winning on a discard")
    counts = [0] * KINDS
    for c in hand + [c for g in groups for c in g.cards] + ([win_card] if win_card is not None else []):
        counts[c] += 1
    if max(counts) > COPIES:
        raise BadInput("impossible card counts: more than 4 copies of a card")
    if win_by not in ("natural", "reveal"):
        held = [0] * KINDS
        for c in hand:
            held[c] += 1
        if max(held, default=0) == COPIES:
            raise BadInput("hand: four of a kind in hand are laid as 提 (only natural/reveal wins hold them)")
    return rs, hand, groups, win_card, win_by, dealer, last_card, reveal_card


def _list(value: object, name: str) -> list:
    if not isinstance(value, list):
        raise BadInput(f"{name}: expected a list")
    return value


def _answer(data: object) -> tuple[dict[str, Any], bool]:
    try:
        args = parse_request(data)
    except BadInput as exc:
        return {"win": False, "reason": "bad_input", "message": str(exc)}, False
    return capped(args[0], score_win(*args).to_wire()), True


def run_score(text: str) -> tuple[str, int]:
    """ENGINE_CLI ``score``: stdin text → (stdout JSON text, exit status).

    >>> out, status = run_score('{"preset": "basic", "hand": ["s1"], "win_card": "s9", "win_by": "self_draw"}')
    >>> status, json.loads(out)["reason"]
    (0, 'incomplete')
    >>> run_score("{")[1]
    2
    """
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, ValueError) as exc:
        bad = {"win": False, "reason": "bad_input", "message": f"malformed JSON: {exc}"}
        return json.dumps(bad, ensure_ascii=False), 2
    if isinstance(data, list):
        answers = [_answer(item) for item in data]
        status = 0 if all(ok for _, ok in answers) else 2
        return json.dumps([a for a, _ in answers], ensure_ascii=False), status
    answer, ok = _answer(data)
    return json.dumps(answer, ensure_ascii=False), 0 if ok else 2


def run_bench_vectors(path: str) -> dict[str, Any]:
    """Time the scoring core over a JSON list of score requests (``bench --vectors``).

    Reading and checking the requests is not timed; the timed loop is ``score_win`` alone, once per
    request, in this process (its caches start as they are: run it in a fresh process). There is no
    cache keyed on a whole request: ``distinct_vectors`` says how many different requests were
    scored. The static tables (the case tables of ``decompose.py``, the packed laid groups of
    ``tables.py``) are built at import, before the timed loop; their build time is reported as
    ``table_build_seconds``. The garbage collector is run once before the loop, so that collecting
    the objects left by reading the requests is not timed; it stays enabled during the loop.
    ``score_win`` returns the full result; the group-by-group decomposition of a win
    (``ScoreResult.groups``) is built when first read, which this loop does not do.
    """
    from ..scoring.decompose import BUILD_SECONDS
    from ..scoring.tables import BUILD_SECONDS as LAID_BUILD_SECONDS

    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    if not isinstance(data, list):
        raise BadInput("vectors: expected a JSON list of score requests")
    calls = [parse_request(item) for item in data]
    gc.collect()
    start = time.perf_counter()
    for args in calls:
        score_win(*args)
    seconds = time.perf_counter() - start
    return {
        "evaluations": len(calls),
        "distinct_vectors": len({json.dumps(item, sort_keys=True) for item in data}),
        "seconds": round(seconds, 6),
        "per_second": round(len(calls) / seconds) if seconds > 0 else None,
        "us_per_evaluation": round(seconds / len(calls) * 1e6, 2) if calls else None,
        "table_build_seconds": round(BUILD_SECONDS + LAID_BUILD_SECONDS, 4),
    }
