"""No import circle inside an app (issue #13): modules of one app import each other in one
direction, lazy imports included (grimp reads every import statement, not only top-level ones;
imports for type checking only are not circles)."""

from __future__ import annotations

import grimp
import pytest

APPS = ["apps.accounts", "apps.clubs", "apps.tables", "apps.ledgers", "apps.matches", "apps.replays",
        "apps.engine", "apps.embedded"]


@pytest.fixture(scope="module")
def graph():
    return grimp.build_graph("apps", "config", exclude_type_checking_imports=True)


@pytest.mark.parametrize("app", APPS)
def test_no_import_circle_inside(graph, app):
    mods = sorted(m for m in graph.modules if m.startswith(app + ".") and ".migrations" not in m)
    circles = {tuple(sorted((a, b))) for a in mods for b in graph.find_modules_directly_imported_by(a)
               if b.startswith(app + ".") and b != a and graph.chain_exists(importer=b, imported=a)}
    assert not circles, sorted(circles)
