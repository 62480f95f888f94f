"""Views and event redaction (ENGINE_CLI.md "Events on the wire", RULES.md §4.1), and persistence."""

from __future__ import annotations

import hashlib
import json
import random

from apps.engine.actions import Action
from apps.engine.play.events import AUDIT
from apps.engine.play.hand import Hand
from apps.engine.play.observer import build_view
from apps.engine.rules import PRESET_PLAYERS, PRESETS, resolve_ruleset
from tests.engine.hand_support import act, hand_from, pass_all


def test_deal_event_shows_each_seat_only_its_own_hand():
    h = hand_from("full", ["s3"], "s10")
    deal = h.events[0]
    mine = deal.for_viewer(1)["hands"]
    assert all(c is not None for c in mine[1]) and mine[0] == [None] * 20
    assert deal.for_viewer(AUDIT) == deal.to_wire()
    # ARCHITECTURE.md "Observer": a spectator sees no hidden card, not even at the deal.
    assert all(cards == [None] * len(cards) for cards in deal.for_viewer(None)["hands"].values())


def test_draw_card_hidden_until_shown():
    h = hand_from("full", ["s9"], "s10", "s3")
    act(h, 0, {"type": "discard", "card": "s9"})
    pass_all(h)
    draw = next(e for e in h.events if e.type == "draw")
    assert draw.for_viewer(1)["card"] == "s3" and draw.for_viewer(2)["card"] is None
    show = next(e for e in h.events if e.type == "show")
    assert show.for_viewer(2)["card"] == "s3"


def test_view_of_a_seat():
    h = hand_from("full", ["s3"], "s10")
    v = build_view(h, 0)
    assert v["hands"][0] is not None and v["hands"][1] is None and v["hands"][2] is None
    assert v["hand_sizes"] == {0: 21, 1: 20, 2: 20}
    assert v["to_act"] == [0] and v["legal_actions"] == [a.to_wire() for a in h.legal_actions(0)]
    assert v["stock"] == 19 and v["reveal"] == "s10"
    json.dumps(v)
    assert build_view(h, 1)["legal_actions"] == []
    spectator = build_view(h, None)
    assert all(spectator["hands"][s] is None for s in range(3))
    assert "stock_cards" not in spectator and "chou" not in spectator
    assert spectator["legal_actions"] == [] and spectator["pending"] == []
    assert "stock_cards" in build_view(h, AUDIT)


def test_to_json_round_trip_behaves_identically():
    rs = resolve_ruleset("full")
    rng = random.Random(5)
    h = Hand(rs, 1, seed=hashlib.sha256(b"roundtrip").digest())
    for _ in range(15):
        if h.finished:
            break
        seat = h.to_act()[0]
        h.apply(seat, rng.choice(h.legal_actions(seat)))
    data = json.loads(json.dumps(h.to_json()))
    copy = Hand.from_json(data)
    assert copy.to_json() == h.to_json()
    while not h.finished:
        seat = h.to_act()[0]
        assert copy.to_act() == h.to_act() and copy.legal_actions(seat) == h.legal_actions(seat)
        action = rng.choice(h.legal_actions(seat))
        assert [e.to_wire() for e in h.apply(seat, action)] == [e.to_wire() for e in copy.apply(seat, action)]
    assert copy.result == h.result


def test_random_play_conserves_all_80_cards():
    for name in PRESETS:
        for n in PRESET_PLAYERS[name]:
            rs = resolve_ruleset(name, {}, players=n)
            for i in range(12):
                rng = random.Random(i)
                h = Hand(rs, i % n, seed=hashlib.sha256(f"{name}{n}{i}".encode()).digest())
                steps = 0
                while not h.finished:
                    seats = h.to_act()
                    assert seats
                    seat = rng.choice(seats)
                    legal = h.legal_actions(seat)
                    assert legal == sorted(legal, key=lambda a: a.sort_key)
                    h.apply(seat, rng.choice(legal))
                    loc = h.card_locations()
                    total = len(loc["stock"]) + len(loc["table"])
                    total += sum(len(v) for v in loc["hands"].values()) + sum(len(v) for v in loc["discards"].values())
                    total += sum(len(g) for v in loc["groups"].values() for g in v)
                    assert total == 80
                    steps += 1
                    assert steps < 500
                assert h.to_act() == [] and h.result is not None
                if h.result["winner"] is not None:
                    assert h.result["settlement"]["win"] is True
                    assert sum(h.result["settlement"]["deltas"].values()) == 0


def test_action_wire_round_trip():
    for wire in ({"type": "discard", "card": "b10"}, {"type": "peng"}, {"type": "hu"}, {"type": "pass"}):
        assert Action.from_wire(wire).to_wire() == wire


# ---- another seat's pass: the engine's rule (Event.for_viewer -> None), for every consumer ----

RECORDS = sorted((__import__("pathlib").Path(__file__).parent / "records").glob("*.json"))


def _records_with_passes():
    from apps.engine.records.replay import replay

    for path in RECORDS:
        record = json.loads(path.read_text())
        hand = replay(record)
        if any(e.type == "pass" for e in hand.events):
            yield path, record, hand


def test_pass_is_seen_only_by_the_seat_that_passed_and_the_audit():
    checked = 0
    for _path, _record, hand in _records_with_passes():
        for ev in hand.events:
            if ev.type != "pass":
                continue
            checked += 1
            assert ev.for_viewer(AUDIT) == ev.to_wire()
            # his own copy numbers it among his own events (RULES.md §5.3): the others' passes skipped
            mine = sum(1 for e in hand.events[: ev.seq] if e.type != "pass" or e.seat == ev.seat)
            assert ev.for_viewer(ev.seat) == dict(ev.to_wire(), seq=mine)
            assert ev.for_viewer(None) is None  # a spectator sees nobody's pass
            for other in range(hand.players):
                if other != ev.seat:
                    assert ev.for_viewer(other) is None
    assert checked, "no recorded hand has a pass"


def test_claimants_are_hidden_while_claims_are_open():
    """A player sees only himself among the seats that may claim (the engine's view, no patch)."""
    from apps.engine.records.replay import replay

    seen = 0
    for path in RECORDS:
        record = json.loads(path.read_text())
        for k in range(len(record["actions"]) + 1):
            cut = {key: v for key, v in record.items() if key not in ("events", "result")}
            hand = replay(dict(cut, actions=record["actions"][:k]))
            if hand.phase != "claim" or hand.finished:
                continue
            seen += 1
            for viewer in [*range(hand.players), None]:
                view = build_view(hand, viewer)
                assert view["to_act"] == [s for s in hand.to_act() if s == viewer]
                assert view["pending"] == (hand.pending.get(viewer, []) if viewer is not None else [])
        if seen > 40:
            break
    assert seen


def test_cli_trace_as_a_viewer_is_the_engines_redacted_stream(tmp_path, capsys):
    import io

    from apps.engine.cli.main import main
    from apps.engine.records.replay import legal_wire

    path, record, hand = next(_records_with_passes())
    passer = next(e.seat for e in hand.events if e.type == "pass")
    cut = dict(record, actions=record["actions"][:3])
    cut.pop("events"), cut.pop("result")
    from apps.engine.records.replay import replay

    partial = replay(cut)
    for name, viewer in [*((str(s), s) for s in range(hand.players)), ("spectator", None), ("audit", AUDIT)]:
        for rec, h in ((record, hand), (cut, partial)):
            file = tmp_path / "r.json"
            file.write_text(json.dumps(rec))
            out = io.StringIO()
            assert main(["replay", str(file), "--trace", "--viewer", name], out=out) == 0
            lines = [json.loads(line) for line in out.getvalue().splitlines()]
            want = [w for e in h.events if (w := e.for_viewer(viewer)) is not None]
            assert lines[:-1] == json.loads(json.dumps(want))
            if viewer != passer and viewer != AUDIT:
                assert not any(e["type"] == "pass" and e.get("seat") != viewer for e in lines[:-1])
            last = lines[-1]
            if viewer == AUDIT:
                assert set(last["legal"]) == {str(s) for s in range(h.players)}
                assert last["to_act"] == h.to_act()
            else:
                assert last["legal"] == ({} if viewer is None else {str(viewer): legal_wire(h, viewer)})
                assert last["to_act"] == build_view(h, viewer)["to_act"]
    file = tmp_path / "r.json"
    for bad in (["--viewer", "9"], ["--viewer", "x"]):
        out = io.StringIO()
        assert main(["replay", str(file), "--trace", *bad], out=out) == 2
        assert "--viewer" in json.loads(out.getvalue())["message"]
    out = io.StringIO()
    assert main(["replay", str(file), "--viewer", "1"], out=out) == 2  # --viewer needs --trace


