"""One rule, one limit, one order, one snapshot (issue #23): the copies that disagreed are gone.

Each test here failed on the code before the restructuring: the form and the services had other
limits, a match table ignored its template's claim time, elimination was ordered three ways.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.matches import formats, selectors, services, standings
from apps.matches.forms import MatchForm
from apps.matches.models import Entrant, Match, MatchTable
from apps.matches.services.definition import LIMITS
from apps.tables.models import Table

pytestmark = pytest.mark.django_db


def _form(club, template, **overrides):
    start_at = timezone.localtime(timezone.now() + timedelta(hours=2))
    data = {
        "name": "限制赛", "description": "", "template": str(template.pk), "format": "fixed",
        "starts_at": start_at.strftime("%Y-%m-%dT%H:%M"), "registration_opens_at": "",
        "registration_closes_at": "", "checkin_minutes": "10", "min_entrants": "3", "max_entrants": "30",
        "entry_fee": "0", "prize_kind": "percent", "prize_values": "100", "hands_per_round": "2",
        "rounds": "3", "points_by_rank": "", "elim_start_chips": "1000", "elim_line": "900",
        "elim_rise_every": "1", "elim_rise_by": "20", "knockout_top": "1", "final_hands": "4",
    }
    data.update({k: str(v) for k, v in overrides.items()})
    return MatchForm(data, club=club)


@pytest.mark.parametrize("key", ["rounds", "hands_per_round", "final_hands", "elim_rise_every"])
def test_form_and_services_share_every_limit(match_club, make_template, make_match, key):
    club, owner, _admin, _players = match_club(3, funds=0)
    template = make_template(club)
    lo, hi = LIMITS[key]
    fmt = "elimination" if key.startswith("elim") or key == "final_hands" else "fixed"
    for value, ok in ((hi, True), (hi + 1, False), (lo, True), (lo - 1, False)):
        form = _form(club, template, format=fmt, **{key: value})
        assert form.is_valid() is ok, (key, value, form.errors)
        if ok:
            services.match_create(club=club, by=owner, **{**form.match_fields(), "name": f"{key}{value}"})
        else:
            with pytest.raises(services.ValidationError):
                make_match(club, owner, template=template, format=fmt, **{key: value})
    # the page's number input shows the same bounds
    html = str(_form(club, template)[key])
    assert f'min="{lo}"' in html and f'max="{hi}"' in html


def test_the_elimination_line_rules_agree(match_club, make_template, make_match):
    club, owner, _admin, _players = match_club(3, funds=0)
    template = make_template(club)
    # A line at the starting chips is allowed by both (the form refused it before) ...
    assert _form(club, template, format="elimination", elim_line=1000).is_valid()
    make_match(club, owner, format="elimination", elim_start_chips=1000, elim_line=1000)
    # ... a line above them by neither; a line that never rises by neither (the form took 0 before).
    for bad in ({"elim_line": 1001}, {"elim_rise_by": 0}):
        form = _form(club, template, format="elimination", **bad)
        assert not form.is_valid() and set(bad) <= set(form.errors)
        with pytest.raises(services.ValidationError):
            make_match(club, owner, format="elimination", elim_start_chips=1000, **bad)


def test_the_form_reports_every_error_at_once(match_club, make_template):
    club, _owner, _admin, _players = match_club(3, funds=0)
    form = _form(club, make_template(club), entry_fee=-5, max_entrants=2, min_entrants=3, prize_values="50,30",
                 points_by_rank="0,2,4")
    assert not form.is_valid()
    assert {"entry_fee", "max_entrants", "prize_values", "points_by_rank"} <= set(form.errors)


def test_match_tables_take_the_templates_claim_time(match_club, make_template, make_match, mh):
    club, owner, _admin, players = match_club(3)
    template = make_template(club, name="快选")
    template.claim_seconds = 7
    template.save()
    match = make_match(club, owner, template=template)
    assert match.claim_seconds == 7
    mh.register_all(match, players)
    mh.start(match)
    tables = Table.objects.filter(pk__in=MatchTable.objects.filter(match=match).values("table_id"))
    assert tables and {t.claim_seconds for t in tables} == {7}
    assert all(t.arranged for t in tables)  # the real match-table marker, not ``practice``


def test_the_snapshot_is_one_piece():
    snapshot_fields = {f.name for f in Match._meta.fields} & {f.name for f in Table._meta.fields}
    assert {"preset", "options", "players", "base_score", "piao_choices", "turn_seconds", "claim_seconds",
            "ruleset"} <= snapshot_fields


def _row(user_id, order, **fields):
    return formats.Standing(user_id=user_id, registered_order=order, **fields)


def test_elimination_has_one_order_with_game_points_as_the_tie_break():
    fmt = formats.Elimination(formats.Params(table_size=3))
    rows = [_row(1, 1, chips=900, game_points=-100, best_hand=5),
            _row(2, 2, chips=900, game_points=-50, best_hand=1),
            _row(3, 3, chips=1200, game_points=200),
            _row(4, 4, playing=False, out_round=2, chips=1500),
            _row(5, 5, playing=False, out_round=3, chips=100)]
    # Still playing first (chips, then game points: player 2 before player 1 although he registered
    # later and his best hand is lower), then out later before out earlier.
    assert [r.user_id for r in fmt.order(rows)] == [3, 2, 1, 5, 4]


def test_live_standings_and_final_places_use_the_same_order(match_club, make_match, mh):
    club, owner, _admin, players = match_club(6)
    match = make_match(club, owner, format="elimination", elim_start_chips=1000, elim_line=900, final_hands=1)
    mh.register_all(match, players)
    mh.start(match)
    entrants = list(Entrant.objects.filter(match=match))
    for i, e in enumerate(entrants):  # equal chips, different game points: only game points decide
        e.chips, e.game_points, e.best_hand = 1000, 10 * i, 100 - i
    Entrant.objects.bulk_update(entrants, ["chips", "game_points", "best_hand"])
    expected = [e.user_id for e in sorted(entrants, key=lambda e: -e.game_points)]
    assert [r.user_id for r in selectors.standings(match=Match.objects.get(pk=match.pk))] == expected
    assert [e.user_id for e in services.final_order(match)] == expected
    assert [e.user_id for e in standings.ordered(match, entrants)] == expected


def test_every_format_is_registered_with_its_settings_and_words():
    seen = set()
    for key, cls in formats.FORMATS.items():
        assert cls.key == key
        fmt = cls(formats.Params(table_size=3, points_by_rank=(4, 2, 0)))
        assert fmt.summary(str) and fmt.tie_breaks(str)
        seen.update(cls.settings)
    form_fields = set(MatchForm.base_fields)
    assert seen <= form_fields
    when = MatchForm.when.fget(None)
    assert when["rounds"] == "format:fixed" and when["final_hands"] == "format:elimination knockout"
