"""ENGINE_CLI.md "replay" with ``--trace --viewer``: the viewer's whole view (RULES.md §8.6 as each
viewer sees it: tests/engine/rules/test_s8_6_escape.py)."""

from __future__ import annotations

import io
import json
from pathlib import Path

from apps.engine.cli.main import main
from apps.engine.play.observer import build_view
from apps.engine.records.replay import replay

RECORDS = Path(__file__).parent / "records"


def test_cli_replay_trace_viewer_prints_the_whole_view(tmp_path):
    """ENGINE_CLI.md "replay": with ``--trace --viewer SEAT`` the last line gives, as ``"view"``,
    the viewer's whole view after the last action (with ``escape_penalty`` it holds ``escape``)."""
    record = json.loads((RECORDS / "full_3p_escape.json").read_text())
    cut = {k: v for k, v in record.items() if k not in ("events", "result")}
    cut["actions"] = record["actions"][:-1]  # just before the escape: it is legal then
    h = replay(cut)
    path = tmp_path / "cut.json"
    path.write_text(json.dumps(cut))
    for name, viewer in (("0", 0), ("1", 1), ("2", 2), ("spectator", None)):
        out = io.StringIO()
        assert main(["replay", str(path), "--trace", "--viewer", name], out=out) == 0
        last = json.loads(out.getvalue().splitlines()[-1])
        assert last["view"] == json.loads(json.dumps(build_view(h, viewer)))
        assert last["to_act"] == last["view"]["to_act"]
        assert ("escape" in last["view"]) == (viewer is not None)
    leaver = record["actions"][-1]["seat"]
    out = io.StringIO()
    assert main(["replay", str(path), "--trace", "--viewer", str(leaver)], out=out) == 0
    assert json.loads(out.getvalue().splitlines()[-1])["view"]["escape"]["at_least"] >= 8
    out = io.StringIO()
    assert main(["replay", str(path), "--trace"], out=out) == 0  # the audit line is unchanged
    assert set(json.loads(out.getvalue().splitlines()[-1])) == {"legal", "to_act"}
