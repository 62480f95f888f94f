"""RULES.md §8.6 逃跑 as each viewer sees it (issue #41): ``escape`` is legal only while no claim
window is open; "What the leaver is told before he confirms" is in his view (``view["escape"] =
{"at_least": n}`` at base 1, exactly when ``escape`` is legal for him), computed from what he sees
(§5.3): the other active players' laid groups, a face-down 偎 whose card he has not seen counting as
the least a 偎 can be, concealed cards 0. Two worlds that differ only in cards a viewer may not see
give him the same view.
"""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

import pytest

from apps.engine.cards import parse_card
from apps.engine.cli.main import main
from apps.engine.cli.simulate import hand_seed
from apps.engine.groups import Group
from apps.engine.play.hand import Hand
from apps.engine.play.observer import build_view
from apps.engine.records.replay import replay
from apps.engine.scoring.huxi import group_huxi
from apps.engine.scoring.settlement import escape_amounts, escape_penalty
from tests.engine.two_worlds import CONFIGS, other_world, resting_states, ruleset

ESCAPE = {"type": "escape"}
RECORDS = Path(__file__).parent / "records"


def _claim_open(h: Hand) -> bool:
    return h.phase == "claim" and h.claim is not None


@pytest.mark.parametrize(("preset", "players", "escape"), CONFIGS)
def test_s8_6_s5_3_two_worlds_give_every_viewer_the_same_view(preset, players, escape):
    """§5.3 / §8.6: what a viewer is told (his whole view, ``escape`` included) depends on nothing he
    may not see; ``escape`` is legal exactly for the active seats while the hand is in play and "no
    claim window is open", and ``view["escape"]`` is present exactly when it is legal."""
    rs = ruleset(preset, players, escape)
    rng = random.Random(f"{preset}:{players}:{escape}")
    states = differing = 0
    for h, _events in resting_states(rs, f"engine:{preset}:{players}:{escape}", hands=12, every=2):
        states += 1
        for viewer in [*range(players), None]:
            view = build_view(h, viewer)
            legal = ESCAPE in view["legal_actions"]
            if viewer is not None:
                assert legal == (escape and not _claim_open(h) and viewer in h.active_seats)
                assert ("escape" in view) == legal
                if legal:
                    assert view["escape"]["at_least"] <= escape_amounts(h, viewer)["penalty"]  # a lower bound
            else:
                assert "escape" not in view and not legal
            other = other_world(h, viewer, rng)
            if other is None:
                continue
            differing += build_view(other, "audit") != build_view(h, "audit")
            assert build_view(other, viewer) == view, (preset, players, viewer, len(h.actions))
    assert states >= 100 and differing >= states // 2


def _discard_hand(preset: str) -> Hand:
    """A 3-player hand with 逃跑, at a moment with no claim window (a discard awaited)."""
    rs = ruleset(preset, 3, True)
    for i in range(50):
        h = Hand(rs, 0, hand_seed("escape-view", i))
        if h.phase == "discard":
            return h
    raise AssertionError("no hand opening with a discard")


def _group(kind: str, card: str) -> Group:
    c = parse_card(card)
    return Group(kind, (c,) * (4 if kind in ("ti", "pao") else 3))


def test_s8_6_at_least_counts_laid_groups_only_a_face_down_wei_as_a_small_one():
    """§8.6: "each other active player's laid groups scored as in the H rule above, concealed cards
    counting 0 and a face-down 偎 whose card he has not seen counting as a small one (the least it
    can be): at_least = (max(0, floor((H_seen − 12) / 3)) + 8) × base"; a 臭偎 and a 提 show their
    card (§4.1), so they count as seen."""
    h = _discard_hand("full")
    assert h.rs.wei_shown == "none"
    # seat 1: a face-down 偎 of b6 (6; seen by the others as a small one, 3) and a 跑 of b10 (9);
    # seat 2: a 提 of b5 (12, one card up) and a 臭偎 of s4 (3, one card up).
    h.groups[1] = [_group("wei", "b6"), _group("pao", "b10")]
    h.groups[2] = [_group("ti", "b5"), _group("chou_wei", "s4")]
    view0 = build_view(h, 0)
    assert view0["groups"][1][0]["cards"] == [None, None, None] and view0["groups"][2][0]["cards"][0] == "b5"
    assert view0["escape"] == {"at_least": escape_penalty(3 + 9 + 12 + 3)} == {"at_least": 13}
    # the exact price counts the 偎 as it is, and the concealed cards: at least as much
    assert escape_amounts(h, 0)["penalty"] >= escape_penalty(6 + 9 + 12 + 3) == 14
    # seat 1 sees his own 偎, but not seat 0's; seat 0's laid groups count for him, his own do not
    h.groups[0] = [_group("wei", "b9")]
    assert build_view(h, 1)["escape"] == {"at_least": escape_penalty(3 + 12 + 3)} == {"at_least": 10}
    assert build_view(h, 0)["escape"] == {"at_least": 13}  # his own groups never count
    # concealed cards count 0: emptying the others' hands changes nothing
    for s in (1, 2):
        h.hands[s] = [0] * 20
    assert build_view(h, 0)["escape"] == {"at_least": 13}


def test_s8_6_at_least_with_wei_shown_one_and_luzhous_table():
    """§8.6 with §4.1 ``wei_shown = "one"`` (changsha): the 偎's card is seen, so it counts as it is;
    with luzhou's 胡息 table (§10) a face-down 偎 counts the least a 偎 scores there."""
    cs = _discard_hand("changsha")
    assert cs.rs.wei_shown == "one"
    cs.groups[1] = [_group("wei", "b6")]
    assert build_view(cs, 0)["escape"] == {"at_least": escape_penalty(6)}  # 8: under 12
    cs.groups[1] = [_group("wei", "b6")] * 3 + [_group("ti", "b10")]  # 18 + 12 = 30
    assert build_view(cs, 0)["escape"] == {"at_least": escape_penalty(30)} == {"at_least": 14}
    lz = _discard_hand("luzhou")
    least = min(group_huxi(lz.rs, Group("wei", (c, c, c))) for c in range(20))
    lz.groups[1] = [_group("wei", "b10")] * 4
    lz.groups[2] = [_group("wei", "b9")]
    assert build_view(lz, 0)["escape"] == {"at_least": escape_penalty(5 * least)}
    assert build_view(lz, 0)["escape"]["at_least"] < escape_penalty(sum(group_huxi(lz.rs, g) for g in lz.groups[1] + lz.groups[2]))


def test_s8_6_no_escape_and_no_bound_in_a_claim_window_nor_for_a_spectator():
    """§8.6: "legal for any active seat while the hand is in play and no claim window is open";
    the view carries ``escape`` "exactly when escape is legal for that viewer"."""
    rs = ruleset("full", 3, True)
    seen_window = seen_turn = 0
    for h, _ in resting_states(rs, "window", hands=4, every=1):
        for seat in range(3):
            view = build_view(h, seat)
            if _claim_open(h):
                seen_window += 1
                assert ESCAPE not in view["legal_actions"] and "escape" not in view
            else:
                seen_turn += 1
                assert ESCAPE in view["legal_actions"] and view["escape"]["at_least"] >= 8
        assert "escape" not in build_view(h, None) and "escape" not in build_view(h, "audit")
    assert seen_window and seen_turn


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
