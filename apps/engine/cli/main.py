"""The engine's command line (ENGINE_CLI.md): score, simulate, replay, review, verify, bench, duel, fairplay.

I/O lives here, outside the engine core: this module imports the engine, never the reverse.
Exit codes: 0 ok, 1 a difference or a broken invariant, 2 malformed input or an illegal action.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from typing import Any, TextIO

from ..play.observer import build_view
from ..rules import PRESETS


def _dump(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def cmd_score(args: argparse.Namespace, out: TextIO) -> int:
    from .score_requests import run_score

    text, code = run_score(sys.stdin.read())
    out.write(text if text.endswith("\n") else text + "\n")
    return code


def _options(text: str | None) -> dict[str, Any] | None:
    """``--options JSON``: an object of option overrides (ValueError otherwise)."""
    if text is None:
        return None
    try:
        options = json.loads(text)
    except ValueError as exc:
        raise ValueError(f"--options: not JSON: {exc}") from None
    if not isinstance(options, dict):
        raise ValueError("--options: expected a JSON object of option overrides")
    return options


def cmd_simulate(args: argparse.Namespace, out: TextIO) -> int:
    from .simulate import simulate

    try:
        result = simulate(
            preset=args.preset,
            hands=args.hands,
            seed=args.seed,
            bots=args.bots,
            players=args.players,
            check=not args.no_check,
            roundtrip_hands=args.roundtrip_every,
            options=_options(args.options),
            records=args.records,
        )
    except ValueError as exc:
        out.write(_dump({"error": str(exc)}) + "\n")
        return 2
    out.write(_dump(result) + "\n")
    return 1 if result["invalid"] else 0


def _load_record(path: str) -> Any:
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def _viewer(text: str | None, players: int) -> int | str | None:
    """``--viewer``: a seat number, ``spectator`` (None) or ``audit`` (the default); else an error text."""
    from ..play.events import AUDIT

    if text is None or text == AUDIT:
        return AUDIT
    if text == "spectator":
        return None
    if text.isdigit() and int(text) < players:
        return int(text)
    return f"--viewer must be a seat 0-{players - 1}, 'spectator' or 'audit', not {text!r}"


def cmd_replay(args: argparse.Namespace, out: TextIO) -> int:
    from ..actions import IllegalAction
    from ..play.events import AUDIT
    from ..records.replay import ReplayMismatch, legal_wire, replay

    try:
        record = _load_record(args.file)
    except (OSError, ValueError) as exc:
        out.write(_dump({"ok": False, "error": "malformed", "message": f"cannot read record: {exc}"}) + "\n")
        return 2
    if args.viewer is not None and not args.trace:
        out.write(_dump({"ok": False, "error": "malformed", "message": "--viewer needs --trace"}) + "\n")
        return 2
    check_events = not args.trace
    try:
        hand = replay(record, check_events=check_events)
    except ReplayMismatch as exc:
        out.write(_dump({"ok": False, "error": "mismatch", **exc.to_json()}) + "\n")
        return 1
    except IllegalAction as exc:
        index = getattr(exc, "index", None)
        out.write(_dump({"ok": False, "error": "illegal", "index": index, "message": str(exc)}) + "\n")
        return 2
    except ValueError as exc:
        out.write(_dump({"ok": False, "error": "malformed", "message": str(exc)}) + "\n")
        return 2
    if args.trace:
        viewer = _viewer(args.viewer, hand.rs.players)
        if isinstance(viewer, str) and viewer != AUDIT:
            out.write(_dump({"ok": False, "error": "malformed", "message": viewer}) + "\n")
            return 2
        for ev in hand.events:
            wire = ev.for_viewer(viewer)
            if wire is not None:  # None: this viewer must not learn the event happened
                out.write(_dump(wire) + "\n")
        if viewer == AUDIT:
            legal = {str(seat): legal_wire(hand, seat) for seat in range(hand.rs.players)}
            last = {"legal": legal, "to_act": list(hand.to_act())}
        else:  # only what the viewer may know: his own options, the public part of who acts, and
            # his whole view (what the platform builds his copy from; with escape_penalty, §8.6)
            legal = {} if viewer is None else {str(viewer): legal_wire(hand, viewer)}
            view = build_view(hand, viewer)
            last = {"legal": legal, "to_act": view["to_act"], "view": view}
        out.write(_dump(last) + "\n")
        return 0
    out.write(_dump({"ok": True, "events": len(hand.events), "result": hand.result}) + "\n")
    return 0


def cmd_review(args: argparse.Namespace, out: TextIO) -> int:
    """复盘 (review.py): 0 reviewed, 2 unreadable, not a record or export, or an illegal action."""
    from ..analysis.review import DEFAULT_BUDGET_MS, load, review

    try:
        record = load(_load_record(args.file))
        budget = DEFAULT_BUDGET_MS if args.budget_ms is None else args.budget_ms
        if budget < 0:
            raise ValueError("--budget-ms must be >= 0")
        result = review(record, seat=args.seat, seed=args.seed, budget_ms=budget)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        out.write(_dump({"error": "malformed", "message": str(exc)}) + "\n")
        return 2
    out.write(_dump(result) + "\n")
    return 0


def cmd_fairplay(args: argparse.Namespace, out: TextIO) -> int:
    """The fair-play signal on bots we control (cli/fairplay.py): 0, or 2 on bad arguments."""
    from .fairplay import run

    try:
        if args.budget_ms < 0:
            raise ValueError("--budget-ms must be >= 0")
        result = run(cheat=args.cheat, level=args.level, hands=args.hands, seed=args.seed, preset=args.preset,
                     players=args.players, budget_ms=args.budget_ms, honest=args.honest)
    except ValueError as exc:
        out.write(_dump({"error": "bad_arguments", "message": str(exc)}) + "\n")
        return 2
    out.write(_dump(result) + "\n")
    return 0


def cmd_verify(args: argparse.Namespace, out: TextIO) -> int:
    """Check an export (EXPORT.md): 0 every check holds, 1 a check failed, 2 not an export."""
    from ..records.verifier import BadDocument, summary, verify_document

    try:
        doc = _load_record(args.file)
    except (OSError, ValueError) as exc:
        out.write(_dump({"ok": False, "error": "malformed", "message": f"cannot read the export: {exc}"}) + "\n")
        return 2
    try:
        checks = verify_document(doc)
    except BadDocument as exc:
        out.write(_dump({"ok": False, "error": "malformed", "message": f"not an export: {exc}"}) + "\n")
        return 2
    verdict = summary(checks)
    if args.text:
        for c in checks:
            hand = "table" if c["hand"] is None else f"hand {c['hand']}"
            out.write(f"{'PASS' if c['ok'] else 'FAIL'}  {hand:<8} {c['key']:<11} {c['detail']}\n")
        out.write(("OK: every check holds" if verdict["ok"] else f"FAILED: {verdict['failed']}") + "\n")
    else:
        out.write(_dump(verdict) + "\n")
    return 0 if verdict["ok"] else 1


def cmd_bench(args: argparse.Namespace, out: TextIO) -> int:
    if args.vectors:
        from .score_requests import run_bench_vectors

        try:
            result = run_bench_vectors(args.vectors)
        except (OSError, ValueError) as exc:  # score_requests' BadInput is a ValueError
            out.write(_dump({"error": "bad_input", "message": str(exc)}) + "\n")
            return 2
        out.write(_dump(result) + "\n")
        return 0
    if args.simulate:
        from .simulate import simulate

        start, cpu_start = time.perf_counter(), time.process_time()
        result = simulate(preset=args.preset, hands=args.hands, seed=args.seed, bots="random", check=False)
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
        bench = {
            "hands": result["hands"],
            "seconds": round(seconds, 3),
            "hands_per_second": round(result["hands"] / seconds, 1) if seconds else None,
            # On a shared machine the wall clock includes other processes' turns; CPU time does not.
            "cpu_seconds": round(cpu, 3),
            "hands_per_cpu_second": round(result["hands"] / cpu, 1) if cpu else None,
            "events": result["events"],
            "invalid": result["invalid"],
        }
        out.write(_dump(bench) + "\n")
        return 1 if result["invalid"] else 0
    out.write(_dump({"error": "bench needs --vectors FILE or --simulate"}) + "\n")
    return 2


def cmd_duel(args: argparse.Namespace, out: TextIO) -> int:
    from ..bots.search import DEFAULT_BUDGET, Budget
    from ..rules import RuleError
    from .duel import duel

    budget = Budget(
        worlds=DEFAULT_BUDGET.worlds if args.worlds is None else (args.worlds or None),
        cpu_ms=DEFAULT_BUDGET.cpu_ms if args.budget_ms is None else (args.budget_ms or None),
        wall_ms=None,  # a duel measures CPU: other processes' turns on a shared machine do not count
    )
    try:
        progress = None
        if args.progress:
            def progress(partial: dict) -> None:
                sys.stderr.write(_dump(partial) + "\n")
                sys.stderr.flush()

        result = duel(args.a, args.b, args.deals, args.preset, args.players, seed=args.seed, budget=budget,
                      progress=progress, every=args.progress or 100)
    except (RuleError, ValueError) as exc:
        out.write(_dump({"error": str(exc)}) + "\n")
        return 2
    out.write(_dump(result) + "\n")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m apps.engine", description="Paohuzi rules engine tools")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("score", help="evaluate candidate wins: JSON on stdin, JSON on stdout")
    p.set_defaults(func=cmd_score)

    preset_choices = ["all", *PRESETS]
    p = sub.add_parser("simulate", help="play seeded hands with bots, checking invariants")
    p.add_argument("--preset", default="all", choices=preset_choices)
    p.add_argument("--hands", type=int, default=100)
    p.add_argument("--seed", default="0")
    p.add_argument("--bots", default="random", choices=["random", "greedy", "easy", "normal", "hard"])
    p.add_argument("--records", metavar="DIR", default=None, help="write each hand's record to DIR/NNNNN.json")
    p.add_argument("--players", type=int, default=None, choices=[2, 3, 4])
    p.add_argument("--no-check", action="store_true", help="skip the invariant checks")
    p.add_argument("--options", metavar="JSON", default=None,
                   help='option overrides for every configuration that accepts them, e.g. \'{"escape_penalty": true}\'')
    p.add_argument(
        "--roundtrip-every",
        type=int,
        default=1,
        metavar="N",
        help="check the to_json/from_json round trip at the end of every N-th hand (default 1: all; 0: none)",
    )
    p.set_defaults(func=cmd_simulate)

    p = sub.add_parser("replay", help="verify a hand record, or trace it")
    p.add_argument("file")
    p.add_argument("--trace", action="store_true")
    p.add_argument("--viewer", metavar="SEAT", default=None,
                   help="with --trace: the stream as this seat (or 'spectator') receives it in live play")
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("review", help="复盘: every decision of a hand weighed from the deciding seat's own view")
    p.add_argument("file")
    p.add_argument("--seat", type=int, default=None)
    p.add_argument("--seed", default="review")
    p.add_argument("--budget-ms", type=float, default=None, metavar="MS",
                   help="nominal CPU milliseconds per decision (default: review.DEFAULT_BUDGET_MS)")
    p.set_defaults(func=cmd_review)

    p = sub.add_parser("verify", help="check an exported hand or session (paohuzi-hand/1) with the engine alone")
    p.add_argument("file")
    p.add_argument("--text", action="store_true", help="one line per check instead of JSON")
    p.set_defaults(func=cmd_verify)

    p = sub.add_parser("bench", help="benchmarks: scoring vectors or simulated hands")
    p.add_argument("--vectors", metavar="FILE")
    p.add_argument("--simulate", action="store_true")
    p.add_argument("--hands", type=int, default=2000)
    p.add_argument("--preset", default="all", choices=preset_choices)
    p.add_argument("--seed", default="bench")
    p.set_defaults(func=cmd_bench)

    from ..bots.choose import KINDS

    p = sub.add_parser("duel", help="two bot levels on duplicate deals, every seat rotation")
    p.add_argument("--a", default="hard", choices=KINDS)
    p.add_argument("--b", default="normal", choices=KINDS)
    p.add_argument("--deals", type=int, default=100)
    p.add_argument("--preset", default="full", choices=list(PRESETS))
    p.add_argument("--players", type=int, default=3, choices=[2, 3, 4])
    p.add_argument("--seed", default="duel")
    p.add_argument("--budget-ms", type=float, default=None, metavar="MS",
                   help="hard's CPU milliseconds per decision (default: the platform's; 0: unbounded)")
    p.add_argument("--worlds", type=int, default=None, metavar="N",
                   help="hard's sampled worlds per decision at most (default: the platform's; 0: unbounded)")
    p.add_argument("--progress", type=int, default=0, metavar="N",
                   help="also write the figures so far to stderr every N deals")
    p.set_defaults(func=cmd_duel)

    from ..analysis.review import DEFAULT_BUDGET_MS

    p = sub.add_parser("fairplay", help="the fair-play signal of a cheating seat (or an honest one) over N hands")
    p.add_argument("--cheat", default="none", choices=["none", "omniscient", "omniscient-greedy", "partner"])
    p.add_argument("--level", default="normal", choices=["easy", "normal", "hard"])
    p.add_argument("--hands", type=int, default=100)
    p.add_argument("--seed", default="fairplay")
    p.add_argument("--preset", default="full", choices=list(PRESETS))
    p.add_argument("--players", type=int, default=None, choices=[2, 3, 4])
    p.add_argument("--budget-ms", type=float, default=DEFAULT_BUDGET_MS, metavar="MS",
                   help="the detector's nominal CPU milliseconds per evaluation (default: the 复盘's)")
    p.add_argument("--honest", action="store_true",
                   help="also score the honest seats (against every hidden card) and give their pooled figures")
    p.set_defaults(func=cmd_fairplay)
    return parser


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args, out or sys.stdout)
