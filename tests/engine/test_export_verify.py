"""The standalone verifier (apps/engine/records/verifier.py, ``python -m apps.engine verify``) without Django.

Documents are built here the way the platform writes its log (EXPORT.md): ``hand.start`` with the
commitment, the engine events, each player's ``action``, ``hand.end`` with the seed and totals,
every event hash-chained, and the ``hand:<id>`` ledger entries. Then each kind of tampering is
applied to the document and must fail the right check.
"""

from __future__ import annotations

import copy
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from apps.engine.cli.main import main
from apps.engine.records.chain import link_hash
from apps.engine.records.verifier import CHECK_KEYS, FORMAT, BadDocument, verify_document
from tests.engine.exports import make_doc

ROOT = Path(__file__).resolve().parents[2]


def rehash(doc: dict) -> dict:
    """Recompute every hash: an insider rewriting the whole log consistently (the chain then holds)."""
    merged = sorted([*doc["other_events"], *(e for h in doc["hands"] for e in h["events"])], key=lambda e: e["seq"])
    prev = doc["chain"]["start_hash"]
    for ev in merged:
        ev["prev_hash"], ev["hash"] = prev, link_hash(prev, ev["payload"])
        prev = ev["hash"]
    doc["chain"]["end_hash"] = prev
    return doc


def bad_keys(doc: dict) -> dict[str, str]:
    return {c["key"]: c["detail"] for c in verify_document(doc) if not c["ok"]}


def engine_events(doc: dict) -> list[dict]:
    return [e for e in doc["hands"][0]["events"] if e["type"] == "engine"]


@pytest.fixture(scope="module")
def doc() -> dict:
    return make_doc(piao={0: 1, 1: 2, 2: 0})


@pytest.mark.parametrize(("preset", "players"), [("full", 3), ("chenzhou", 2), ("chenzhou", 4), ("luzhou", 4)])
def test_honest_documents_pass_every_check(preset, players):
    checks = verify_document(make_doc(preset, players))
    assert [c["key"] for c in checks] == [*CHECK_KEYS, "chain"]  # + the table-level chain of a session
    assert all(c["ok"] for c in checks), [c for c in checks if not c["ok"]]


def test_swapped_seed_fails_the_commitment(doc):
    bad = copy.deepcopy(doc)
    bad["hands"][0]["seed"] = "11" * 32
    found = bad_keys(bad)
    assert "sha256(seed)" in found["commitment"]
    assert "deck" in found and "replay" in found


def test_a_rewritten_deal_fails_the_deck_even_with_a_consistent_chain(doc):
    bad = copy.deepcopy(doc)
    deal = engine_events(bad)[0]["payload"]
    hands = deal["hands"]
    a, b = sorted(hands)[:2]
    i = next(i for i, card in enumerate(hands[a]) if card != hands[b][0])
    hands[a][i], hands[b][0] = hands[b][0], hands[a][i]  # swap two different cards between two deals
    found = bad_keys(rehash(bad))
    assert "chain" not in found
    assert "dealt hand" in found["deck"]
    assert "replay" in found


def test_a_rewritten_engine_event_fails_the_replay_at_its_seq(doc):
    bad = copy.deepcopy(doc)
    target = next(e for e in engine_events(bad) if e["payload"]["type"] == "discard")
    target["payload"]["card"] = "s1" if target["payload"]["card"] != "s1" else "s2"
    found = bad_keys(rehash(bad))
    assert set(found) == {"replay"}
    assert f"seq {target['seq']}" in found["replay"] and ".card" in found["replay"]


def test_an_edited_payload_breaks_the_chain_there(doc):
    bad = copy.deepcopy(doc)
    target = engine_events(bad)[5]
    target["payload"] = dict(target["payload"], extra=1)
    found = bad_keys(bad)
    assert f"seq {target['seq']}: hash does not match its payload (the payload was edited)" in found["chain"]


def test_a_missing_event_breaks_the_chain(doc):
    bad = copy.deepcopy(doc)
    events = bad["hands"][0]["events"]
    gone = events.pop(6)
    found = bad_keys(bad)
    assert f"seq {gone['seq']} missing" in found["chain"]
    assert "replay" in found


def test_reordered_events_break_the_chain(doc):
    bad = copy.deepcopy(doc)
    events = bad["hands"][0]["events"]
    events[4]["seq"], events[5]["seq"] = events[5]["seq"], events[4]["seq"]
    found = bad_keys(bad)
    assert "prev_hash does not match" in found["chain"]


def test_a_cut_end_breaks_the_chain(doc):
    bad = copy.deepcopy(doc)
    bad["hands"][0]["events"].pop()  # hand.end removed
    found = bad_keys(bad)
    assert "events at the end are missing" in found["chain"]
    assert "hand.end" in found["settlement"]


def test_changed_totals_fail_the_settlement(doc):
    bad = copy.deepcopy(doc)
    part = bad["hands"][0]
    winner = str(part["result"]["winner"])
    part["totals"]["total"][winner] += 10
    found = bad_keys(bad)
    assert "the totals in the header" in found["settlement"]
    end = part["events"][-1]
    end["payload"]["totals"] = part["totals"]
    found = bad_keys(rehash(bad))
    assert "settlement" in found


def test_piao_changed_in_the_header_fails_the_settlement(doc):
    bad = copy.deepcopy(doc)
    bad["hands"][0]["piao"]["0"] = 5
    assert "hand.start's" in bad_keys(bad)["settlement"]


def test_ledger_tampering_fails_the_ledger(doc):
    bad = copy.deepcopy(doc)
    entries = bad["hands"][0]["ledger"]["entries"]
    entries[0]["amount"] += 1
    assert "not zero" in bad_keys(bad)["ledger"]
    entries[1]["amount"] -= 1  # balanced again, but not the totals
    assert "entries sum to" in bad_keys(bad)["ledger"]
    bad["hands"][0]["ledger"] = None
    assert "not settled" in bad_keys(bad)["ledger"]


def test_ledger_fee_lines_must_balance(doc):
    good = copy.deepcopy(doc)
    ledger = good["hands"][0]["ledger"]
    ledger["fee"] = {"per_seat": 2, "payer": "each", "seats": [0, 1]}
    for seat in (0, 1):
        ledger["entries"] += [{"seat": seat, "kind": "fee", "amount": -2, "account": "member", "user_id": 100 + seat},
                              {"seat": seat, "kind": "fee", "amount": 2, "account": "club", "user_id": None}]
    assert "ledger" not in bad_keys(good)
    bad = copy.deepcopy(good)
    bad["hands"][0]["ledger"]["entries"][-1]["amount"] = 3
    assert "ledger" in bad_keys(bad)
    bad = copy.deepcopy(good)
    bad["hands"][0]["ledger"]["fee"]["seats"] = [0, 1, 2]
    assert "fee lines for seats" in bad_keys(bad)["ledger"]


def test_ill_formed_documents_are_refused():
    with pytest.raises(BadDocument):
        verify_document([])
    with pytest.raises(BadDocument, match="format"):
        verify_document({"format": "other/1"})
    doc = make_doc()
    broken = copy.deepcopy(doc)
    del broken["hands"][0]["seed"]
    with pytest.raises(BadDocument, match="seed"):
        verify_document(broken)
    playing = copy.deepcopy(doc)
    playing["hands"][0]["status"] = "playing"
    with pytest.raises(BadDocument, match="ended"):
        verify_document(playing)


def _cli(path: Path, *args: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(["verify", str(path), *args], out=out), out.getvalue()


def test_cli_exit_codes(tmp_path, doc):
    path = tmp_path / "doc.json"
    path.write_text(json.dumps(doc))
    code, text = _cli(path)
    verdict = json.loads(text)
    assert code == 0 and verdict["ok"] is True and set(verdict["checks"]) == set(CHECK_KEYS)
    code, text = _cli(path, "--text")
    assert code == 0 and text.splitlines()[-1] == "OK: every check holds" and "PASS" in text
    bad = copy.deepcopy(doc)
    bad["hands"][0]["seed"] = "22" * 32
    path.write_text(json.dumps(bad))
    code, text = _cli(path)
    verdict = json.loads(text)
    assert code == 1 and verdict["ok"] is False and verdict["failed"] == "commitment" and verdict["detail"]
    code, text = _cli(path, "--text")
    assert code == 1 and "FAIL  hand 1   commitment" in text
    path.write_text("{not json")
    code, text = _cli(path)
    assert code == 2 and json.loads(text)["error"] == "malformed"
    path.write_text(json.dumps({"format": FORMAT, "scope": "hand"}))
    code, text = _cli(path)
    assert code == 2 and "not an export" in json.loads(text)["message"]
    code, text = _cli(tmp_path / "missing.json")
    assert code == 2


def test_cli_runs_without_django(tmp_path, doc):
    """``python -m apps.engine verify`` in a fresh interpreter: it must not import Django."""
    path = tmp_path / "doc.json"
    path.write_text(json.dumps(doc))
    probe = ("import runpy, sys; sys.argv = ['apps.engine', 'verify', sys.argv[1]]\n"
             "try:\n    runpy.run_module('apps.engine', run_name='__main__')\n"
             "except SystemExit as e:\n    assert 'django' not in sys.modules, 'django imported'\n    raise")
    proc = subprocess.run([sys.executable, "-c", probe, str(path)], capture_output=True, text=True, cwd=ROOT,
                          timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert json.loads(proc.stdout)["ok"] is True


def test_a_rewritten_reveal_card_fails_the_deck(doc):
    bad = copy.deepcopy(doc)
    reveal = engine_events(bad)[1]["payload"]
    assert reveal["type"] == "reveal"
    reveal["card"] = "s1" if reveal["card"] != "s1" else "s2"
    found = bad_keys(rehash(bad))
    assert "chain" not in found and "the reveal card" in found["deck"]


# ---- the room options (RULES.md §3.8, §8.6, §9.6) -------------------------------------------------

@pytest.mark.parametrize(
    ("preset", "players", "options", "escape_at", "want"),
    [
        ("luzhou", 4, {}, None, lambda h: h.rs.bottom_shown),  # §3.8: luzhou's 4-player default
        ("luzhou", 2, {"remove_cards": 20}, None, None),  # §9.6 抽牌
        ("chenzhou", 2, {"remove_cards": 20, "score_cap": 3}, None, None),
        ("full", 3, {"escape_penalty": True}, 9, lambda h: "escape" in h.result),  # §8.6
        ("full", 3, {"score_cap": 2, "qi_hu": 18, "forced_win": True}, None,
         lambda h: "cap" in h.result.get("settlement", {})),  # §9.6 封顶 with 起胡 and 有胡必胡
    ],
)
def test_documents_of_hands_with_room_options_pass_every_check(tmp_path, preset, players, options, escape_at, want):
    doc = make_doc(preset, players, options=options, escape_at=escape_at, want=want, piao={0: 1, 1: 2})
    checks = verify_document(doc)
    assert all(c["ok"] for c in checks), [c for c in checks if not c["ok"]]
    path = tmp_path / "export.json"
    path.write_text(json.dumps(doc))
    assert main(["verify", str(path)], out=io.StringIO()) == 0  # the command line agrees


def test_an_escape_settles_without_piao_and_the_ledger_must_match():
    """§8.6: no 飘 is paid on an escape; the totals are the penalty × base split; a changed line fails."""
    doc = make_doc("full", 3, options={"escape_penalty": True}, escape_at=9, piao={0: 3, 1: 2, 2: 1},
                   want=lambda h: "escape" in h.result)
    hand = doc["hands"][0]
    leaver = hand["result"]["escape"]
    assert hand["totals"]["piao"] == {"0": 0, "1": 0, "2": 0}
    assert hand["totals"]["total"][str(leaver)] == -hand["result"]["penalty"] * hand["base_score"]
    bad = copy.deepcopy(doc)
    line = next(e for e in bad["hands"][0]["ledger"]["entries"] if e["seat"] == leaver and e["kind"] == "score")
    line["amount"] -= 1
    other = next(e for e in bad["hands"][0]["ledger"]["entries"] if e["seat"] != leaver and e["kind"] == "score")
    other["amount"] += 1
    assert "ledger" in bad_keys(rehash(bad))


def test_a_rewritten_bottom_card_fails_the_deck():
    """§3.8: the shown last stock card comes from the deck; a log that shows another fails ``deck``."""
    doc = make_doc("luzhou", 4)
    bad = copy.deepcopy(doc)
    shown = next(e for e in engine_events(bad) if e["payload"]["type"] == "bottom_shown")["payload"]
    shown["card"] = "s1" if shown["card"] != "s1" else "s3"
    found = bad_keys(rehash(bad))
    assert "chain" not in found and "the bottom_shown event" in found["deck"]


def test_rewritten_set_aside_cards_fail_the_deck():
    """§9.6: the set-aside cards are the deck's last 20; the export (an audit copy) must show them."""
    doc = make_doc("luzhou", 2, options={"remove_cards": 20})
    bad = copy.deepcopy(doc)
    aside = engine_events(bad)[1]["payload"]
    assert aside["type"] == "set_aside" and aside["count"] == 20 and len(aside["cards"]) == 20
    aside["cards"] = sorted(aside["cards"])
    if aside["cards"] == engine_events(doc)[1]["payload"]["cards"]:
        aside["cards"] = aside["cards"][::-1]
    found = bad_keys(rehash(bad))
    assert "chain" not in found and "the set_aside event" in found["deck"]
