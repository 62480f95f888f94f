"""The room options of RULES.md §3.8, §8.6 and §9.6 as fields of the rule template form (issue
#26): each one saves the override the engine expects, comes back checked/filled on the edit page
and saves the same again; the defaults of RULES.md; only valid combinations; the rules in words."""

from __future__ import annotations

import pytest
from django.urls import reverse

from apps.clubs import rules_text
from apps.clubs.forms import RuleTemplateForm
from apps.clubs.models import RuleTemplate
from tests.clubs.template_form import MAIN, opt, post, saved

# preset, players, POSTed option fields, expected stored overrides
CASES = [
    ("basic", 3, opt("basic", qi_hu=18, score_cap=10, forced_win=True, escape_penalty=True),
     {"qi_hu": 18, "score_cap": 10, "forced_win": True, "escape_penalty": True}),
    ("full", 3, opt("full", qi_hu=0, score_cap=0), {}),
    ("chenzhou", 2, opt("chenzhou", min_huxi=9, remove_cards=20, four_player_mode="deal_all", discard_win=True,
                        chou_on_unable_chi=True, hong_hu_fan=3, tun_mode="3xi1tun",
                        fang_pao_fan=0, pao_pays="each"),
     {"remove_cards": 20, "piao": False}),
    ("luzhou", 2, opt("luzhou", min_huxi=10, remove_cards=20, qi_hu=21), {"remove_cards": 20, "qi_hu": 21}),
    # §3.8: on by default for luzhou with 4 players sitting one out; an unchecked box is an override
    ("luzhou", 4, opt("luzhou", min_huxi=10, four_player_mode="sit_out", bottom_shown=True), {}),
    ("luzhou", 4, opt("luzhou", min_huxi=10, four_player_mode="sit_out"), {"bottom_shown": False}),
    ("chenzhou", 4, opt("chenzhou", min_huxi=9, four_player_mode="sit_out", bottom_shown=True, discard_win=True,
                        chou_on_unable_chi=True, hong_hu_fan=3, tun_mode="3xi1tun",
                        fang_pao_fan=0, pao_pays="each"),
     {"four_player_mode": "sit_out", "bottom_shown": True, "piao": False}),
]


def _post_data(form: RuleTemplateForm, preset: str) -> dict:
    """What a browser sends back from the edit page unchanged (its initial values)."""
    data = {}
    for name, field in form.fields.items():
        value = form.initial.get(name, field.initial)
        if name.startswith("opt_") and not name.startswith(f"opt_{preset}_"):
            continue
        if value is True:
            data[name] = "on"
        elif value is False or value is None:
            continue
        else:
            data[name] = str(value)
    return data


@pytest.mark.parametrize(("preset", "players", "fields", "expected"), CASES)
def test_each_room_option_saves_and_round_trips_through_the_edit_page(client, world, preset, players, fields,
                                                                       expected):
    client.force_login(world.owner)
    data = {**MAIN, "preset": preset, "players": str(players), **fields}
    response = post(client, world, data)
    assert response.status_code == 302, response.content.decode()
    template = saved(world)
    assert template.options == expected
    rules = template.resolve_ruleset()
    for name, value in expected.items():
        assert getattr(rules, name) == value
    # The edit page shows the same values, and saving it unchanged stores the same overrides.
    edit = reverse("clubs:template_edit", args=[world.club.pk, template.pk])
    page = client.get(edit)
    assert page.status_code == 200
    again = _post_data(RuleTemplateForm(initial=RuleTemplateForm.initial_from(template)), preset)
    response = client.post(edit, again, HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert response.status_code == 302, response.content.decode()
    template.refresh_from_db()
    assert template.options == expected
    assert template.resolve_ruleset() == rules


def test_the_fields_carry_their_player_counts_and_chinese_labels(client, world):
    client.force_login(world.owner)
    html = client.get(reverse("clubs:template_create", args=[world.club.pk]),
                      HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert 'name="opt_luzhou_bottom_shown"' in html and 'data-players="4"' in html
    assert 'name="opt_luzhou_remove_cards"' in html and 'data-players="2"' in html
    assert 'name="opt_basic_remove_cards"' not in html and 'name="opt_basic_bottom_shown"' not in html
    for word in ("底牌明示", "逃跑", "起胡", "封顶", "有胡必胡", "抽牌"):
        assert word in html, word


# invalid combinations: (preset, players, POSTed fields, field in error, zh words)
BAD = [
    ("luzhou", 3, opt("luzhou", min_huxi=10, bottom_shown=True), "opt_luzhou_bottom_shown", "底牌明示只能在4人"),
    ("luzhou", 4, opt("luzhou", min_huxi=10, four_player_mode="deal_all", bottom_shown=True),
     "opt_luzhou_bottom_shown", "底牌明示只能在4人"),
    ("luzhou", 3, opt("luzhou", min_huxi=10, remove_cards=20), "opt_luzhou_remove_cards", "抽牌只适用于2人"),
    ("full", 3, opt("full", score_cap=-1), "opt_full_score_cap", "0"),
    ("full", 3, opt("full", qi_hu=16), "opt_full_qi_hu", "16"),
]


@pytest.mark.parametrize(("preset", "players", "fields", "field", "zh"), BAD)
def test_invalid_combinations_are_refused_in_words(client, world, preset, players, fields, field, zh):
    client.force_login(world.owner)
    before = RuleTemplate.objects.count()
    response = post(client, world, {**MAIN, "preset": preset, "players": str(players), **fields})
    assert response.status_code == 200
    assert field in response.context["form"].errors, response.context["form"].errors
    assert zh in response.content.decode()
    assert RuleTemplate.objects.count() == before


def test_rules_in_words_describe_each_option(settings):
    from django.utils import translation

    with translation.override("zh-hans"):
        text = "".join(rules_text.describe("full", {"qi_hu": 18, "score_cap": 12, "forced_win": True,
                                                    "escape_penalty": True}, players=3))
        assert "起胡：胡牌至少要18胡息" in text and "封顶" in text and "12" in text
        assert "有胡必胡" in text and "逃跑" in text
        assert "底牌" not in text and "抽牌" not in text
        text = "".join(rules_text.describe("luzhou", {}, players=4))
        assert "底牌明示" in text
        assert "底牌明示" not in "".join(rules_text.describe("luzhou", {"bottom_shown": False}, players=4))
        text = "".join(rules_text.describe("luzhou", {"remove_cards": 20}, players=2))
        assert "抽牌" in text and "20" in text
        plain = "".join(rules_text.describe("full", {}, players=3))
        for word in ("起胡：", "封顶", "有胡必胡", "逃跑"):
            assert word not in plain
