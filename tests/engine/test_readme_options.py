"""The engine README lists every RuleSet option (its rule tests are in tests/engine/rules/)."""

from __future__ import annotations

from apps.engine.rules import OPTION_NAMES


def test_the_engine_readme_lists_every_ruleset_option():
    """The README's option table stays complete: one row per field of RuleSet, no stale rows."""
    from dataclasses import fields
    from pathlib import Path

    from apps.engine.rules import RuleSet

    text = (Path(__file__).resolve().parents[2] / "apps" / "engine" / "README.md").read_text()
    section = text.split("## Ruleset options", 1)[1].split("\n## ", 1)[0]
    rows = [line.split("|")[1].strip().strip("`") for line in section.splitlines() if line.startswith("| `")]
    assert rows == [f.name for f in fields(RuleSet)]
    assert set(OPTION_NAMES) < set(rows)
