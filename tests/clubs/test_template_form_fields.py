"""The rule template form without JSON: the preset by name, each preset's options as fields, piao
choices that switch piao on, errors in the user's language (all at once), no JSON field (older
stored overrides kept), only the preset's player counts, claim time."""

from __future__ import annotations

import pytest
from django.urls import reverse

from apps.clubs import services
from apps.clubs.forms import RuleTemplateForm
from apps.clubs.models import RuleTemplate
from tests.clubs.template_form import MAIN, opt, post, saved

# preset, players, piao choices, POSTed option fields, expected stored overrides
CASES = [
    ("basic", 3, "1,2",
     opt("basic", min_huxi=12, piao_mode="loser", chou_hu=True, dealer_after_draw="next"),
     {"min_huxi": 12, "piao_mode": "loser", "chou_hu": True, "dealer_after_draw": "next", "piao": True}),
    ("half", 3, "", opt("half", min_huxi=15, chou_hu=True, piao_mode="both", dealer_after_draw="stay3"),
     {"chou_hu": True}),
    ("full", 3, "", opt("full", min_huxi=15, piao_mode="both", dealer_after_draw="stay3"), {}),
    ("changsha", 3, "0,1,2", opt("changsha", min_huxi=15, piao_mode="winner", dealer_after_draw="stay3"),
     {"piao": True, "piao_mode": "winner"}),
    ("quanmin", 3, "", opt("quanmin", min_huxi=15, kai_di_you_xi=True, piao_mode="both",
                           dealer_after_draw="stay3"),
     {"kai_di_you_xi": True}),
    ("chenzhou", 4, "",
     opt("chenzhou", min_huxi=6, tun_mode="1xi1tun", mao_hu=True, zimo="none", zimo_fan=2, discard_win=True,
         pao_pays="all", fang_pao_fan=0, chou_on_unable_chi=False, hong_hu_fan=4, hong_hei_dian_2x=True,
         four_player_mode="deal_all", piao_mode="both", dealer_after_draw="next"),
     {"min_huxi": 6, "tun_mode": "1xi1tun", "mao_hu": True, "zimo": "none", "pao_pays": "all",
      "chou_on_unable_chi": False, "hong_hu_fan": 4, "hong_hei_dian_2x": True, "piao": False}),
    ("chenzhou", 3, "1,2,3",
     opt("chenzhou", min_huxi=9, tun_mode="3xi1tun", zimo="fan", zimo_fan=3, discard_win=True, pao_pays="each",
         fang_pao_fan=0, chou_on_unable_chi=True, hong_hu_fan=3, four_player_mode="deal_all", piao_mode="both",
         dealer_after_draw="next"),
     {"zimo_fan": 3}),
    ("luzhou", 4, "", opt("luzhou", min_huxi=10, four_player_mode="deal_all", piao_mode="both",
                          dealer_after_draw="stay3"),
     {"four_player_mode": "deal_all"}),
]


@pytest.mark.parametrize(("preset", "players", "piao", "fields", "expected"), CASES)
def test_each_presets_option_fields_save_the_expected_overrides(client, world, preset, players, piao, fields,
                                                                expected):
    client.force_login(world.owner)
    data = {**MAIN, "preset": preset, "players": str(players), "piao_choices": piao, **fields}
    response = post(client, world, data)
    assert response.status_code == 302, response.content.decode()
    template = saved(world)
    assert template.options == expected
    assert template.piao_choices == [int(v) for v in piao.split(",") if v]
    rules = template.resolve_ruleset()  # what the engine makes of it
    for name, value in expected.items():
        assert getattr(rules, name) == value


@pytest.mark.parametrize("preset", ["basic", "half", "full", "changsha", "quanmin", "chenzhou", "luzhou"])
def test_piao_choices_turn_piao_on_for_every_preset(client, world, preset):
    """Today's error '请设置选项 "piao": true' on basic is gone: the form sets the option itself."""
    client.force_login(world.owner)
    response = post(client, world, {**MAIN, "preset": preset, "piao_choices": "1，2、3",
                                    **opt(preset, piao_mode="loser")})
    assert response.status_code == 302, response.content.decode()
    template = saved(world)
    assert template.piao_choices == [1, 2, 3]
    rules = template.resolve_ruleset()
    assert rules.piao is True and rules.piao_mode == "loser"


def test_other_presets_fields_are_neither_used_nor_checked(client, world):
    """Without JavaScript every preset's options are on the page; only the chosen one's count."""
    client.force_login(world.owner)
    data = {**MAIN, "preset": "basic", **opt("chenzhou", min_huxi="abc", mao_hu=True), **opt("quanmin", min_huxi=99)}
    assert post(client, world, data).status_code == 302
    assert saved(world).options == {}


# field errors: (preset, players, POSTed fields, error field, zh-hans message, English message)
BAD = [
    ("chenzhou", 3, opt("chenzhou", pao_pays="all", discard_win=False),
     "“接炮时谁付”只在可接炮时有效。", "Who pays on a discard win only applies when a win on a discard is allowed."),
    ("basic", 4, {}, "基本花样只能3人玩。", "Basic is played by 3 players."),
    ("full", 3, opt("full", min_huxi=99), "30", "30"),
    ("full", 3, opt("full", min_huxi="x"), "整数", "whole number"),
    ("chenzhou", 3, opt("chenzhou", min_huxi=10), "10", "10"),  # not one of the choices
    ("luzhou", 3, opt("luzhou", four_player_mode="all_in"), "all_in", "all_in"),
]


@pytest.mark.parametrize(("preset", "players", "fields", "zh", "en"), BAD)
def test_bad_option_values_get_errors_in_the_users_language(client, world, preset, players, fields, zh, en):
    client.force_login(world.owner)
    before = RuleTemplate.objects.count()
    data = {**MAIN, "preset": preset, "players": str(players), **fields}
    html = post(client, world, data).content.decode()
    assert zh in html and 'class="error"' in html
    english = post(client, world, data, lang="en").content.decode()
    assert en in english
    for leak in ("expected an integer", "Invalid rules", "not one of sit_out", "RuleError"):
        assert leak not in html and leak not in english
    assert RuleTemplate.objects.count() == before  # nothing saved


def test_bad_numbers_and_piao_choices_in_both_languages(client, world):
    client.force_login(world.owner)
    data = {**MAIN, "preset": "full", "claim_seconds": "200", "piao_choices": "1,a"}
    html = post(client, world, data).content.decode()
    assert "120" in html and "飘分选项必须是用逗号分隔的整数" in html
    english = post(client, world, data, lang="en").content.decode()
    assert "less than or equal to 120" in english and "Piao choices must be whole numbers" in english
    html = post(client, world, {**data, "claim_seconds": "2", "piao_choices": "1,1"}).content.decode()
    assert "每个飘分选项只能出现一次" in html and "3" in html
    assert not RuleTemplate.objects.filter(name=MAIN["name"]).exists()


# ---- no JSON field; every error at once; only the preset's player counts (issue 24) ---------------


def test_the_form_has_no_json_field_and_ignores_one(client, world):
    client.force_login(world.owner)
    html = client.get(reverse("clubs:template_create", args=[world.club.pk])).content.decode()
    assert 'name="options"' not in html and "JSON" not in html and "高级" not in html
    data = {**MAIN, "preset": "basic", "options": '{"mingtang_stack": "max", "min_huxi": 12}'}
    assert post(client, world, data).status_code == 302
    assert saved(world).options == {}  # a forged JSON override sets nothing


def test_zimo_is_a_field_of_every_preset(client, world):
    client.force_login(world.owner)
    data = {**MAIN, "preset": "full", **opt("full", zimo="fan", zimo_fan=3)}
    assert post(client, world, data).status_code == 302
    assert saved(world).options == {"zimo": "fan", "zimo_fan": 3}
    assert saved(world).resolve_ruleset().zimo == "fan"


def test_every_error_is_reported_at_once(client, world):
    """A missing name, a base score of 0, a fee of -5, 4 players for 全名堂 and a minimum huxi of 40:
    one answer lists them all (the fee used to be flagged only once the others were fixed)."""
    client.force_login(world.owner)
    data = {**MAIN, "preset": "full", "name": "", "base_score": "0", "fee": "-5", "players": "4",
            **opt("full", min_huxi=40)}
    response = post(client, world, data)
    assert response.status_code == 200
    form = response.context["form"]
    assert set(form.errors) >= {"name", "base_score", "fee", "players", "opt_full_min_huxi"}, form.errors
    html = response.content.decode()
    assert "桌费不能为负数" in html and "全名堂只能3人玩" in html
    assert not RuleTemplate.objects.filter(club=world.club, name="").exists()
    # The same fee alone, with everything else right: still refused, with the same words.
    response = post(client, world, {**MAIN, "preset": "full", "fee": "-5"})
    assert list(response.context["form"].errors) == ["fee"]
    # Once the preset's own options are right, the engine's checks come in the same answer too.
    response = post(client, world, {**MAIN, "preset": "chenzhou", "fee": "-5", "players": "3",
                                    **opt("chenzhou", pao_pays="all")})
    assert set(response.context["form"].errors) == {"fee", "opt_chenzhou_pao_pays"}


@pytest.mark.parametrize(("preset", "players", "ok"), [
    ("full", 4, False), ("full", 2, False), ("full", 3, True), ("basic", 4, False),
    ("chenzhou", 2, True), ("chenzhou", 4, True), ("luzhou", 2, True),
])
def test_only_the_presets_player_counts_are_accepted(client, world, preset, players, ok):
    client.force_login(world.owner)
    response = post(client, world, {**MAIN, "preset": preset, "players": str(players)})
    if ok:
        assert response.status_code == 302
        assert saved(world).players == players
    else:
        assert response.status_code == 200 and list(response.context["form"].errors) == ["players"]
        assert "只能3人玩" in response.content.decode()
        assert not RuleTemplate.objects.filter(name=MAIN["name"]).exists()


def test_the_page_hands_its_script_the_player_counts_of_each_preset(client, world):
    from apps.engine.rules import PRESET_PLAYERS

    client.force_login(world.owner)
    response = client.get(reverse("clubs:template_create", args=[world.club.pk]))
    assert response.context["preset_players"] == {k: list(v) for k, v in PRESET_PLAYERS.items()}
    assert 'id="preset-players"' in response.content.decode()


def test_older_overrides_no_field_shows_are_kept_on_edit(client, world):
    """A template saved when the form had a JSON field keeps what only that field could set."""
    template = services.template_create(
        club=world.club, by=world.owner, name="旧模板", preset="basic", players=3, base_score=1,
        piao_choices=[], hands_per_session=8, turn_seconds=15, claim_seconds=15,
        options={"mingtang_stack": "max", "min_huxi": 12},
    )
    client.force_login(world.admin)
    url = reverse("clubs:template_edit", args=[world.club.pk, template.pk])
    data = {**MAIN, "name": "旧模板", "preset": "basic", **opt("basic", min_huxi=10)}
    assert client.post(url, data).status_code == 302
    template.refresh_from_db()
    assert template.options == {"mingtang_stack": "max", "min_huxi": 10}


# ---- the page, the edit round trip, the claim time ----------------------------------------------


def test_the_page_names_presets_in_chinese_with_descriptions_and_option_fields(client, world):
    client.force_login(world.owner)
    url = reverse("clubs:template_create", args=[world.club.pk])
    html = client.get(url).content.decode()
    for label in ("基本花样", "全名堂", "长沙跑胡子", "郴州跑胡子", "泸州大贰"):
        assert label in html
    assert '<option value="chenzhou">郴州跑胡子</option>' in html
    assert "可接炮（放炮）" in html and "开底有喜" in html and "飘怎么算" in html and "吃碰胡限时（秒）" in html
    assert 'data-preset-only="chenzhou"' in html and 'name="opt_chenzhou_discard_win"' in html
    assert "js/clubs/template_form.js" in html
    # each preset's fields start from that preset's defaults
    assert 'name="opt_chenzhou_discard_win" id="id_opt_chenzhou_discard_win" checked' in html
    assert 'name="opt_basic_min_huxi" value="15"' in html and 'name="opt_luzhou_min_huxi" value="10"' in html
    english = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert '<option value="chenzhou">Chenzhou</option>' in english and "Win on a discard (fang pao)" in english


def test_edit_prefills_the_option_fields_and_saves_them_back_unchanged(client, world):
    template = services.template_create(
        club=world.club, by=world.owner, name="改规则", preset="basic", players=3, base_score=2,
        piao_choices=[1, 2], hands_per_session=4, turn_seconds=20, claim_seconds=9,
        options={"min_huxi": 12, "chou_hu": True, "piao": True, "mingtang_stack": "max"},
    )
    initial = RuleTemplateForm.initial_from(template)
    assert initial["opt_basic_min_huxi"] == 12 and initial["opt_basic_chou_hu"] is True
    assert "options" not in initial  # no JSON field: what no field shows is kept as it is
    client.force_login(world.admin)
    url = reverse("clubs:template_edit", args=[world.club.pk, template.pk])
    html = client.get(url).content.decode()
    assert 'name="opt_basic_min_huxi" value="12"' in html and 'name="claim_seconds" value="9"' in html
    data = {k: ("on" if v is True else v) for k, v in initial.items() if v is not False and v is not None}
    assert client.post(url, data).status_code == 302
    template.refresh_from_db()
    assert template.options == {"min_huxi": 12, "chou_hu": True, "piao": True, "mingtang_stack": "max"}
    assert (template.claim_seconds, template.turn_seconds) == (9, 20)


def test_claim_seconds_is_saved_and_defaults_to_15(client, world):
    client.force_login(world.owner)
    assert post(client, world, {**MAIN, "preset": "full", "claim_seconds": "25"}).status_code == 302
    assert saved(world).claim_seconds == 25
    data = {k: v for k, v in MAIN.items() if k != "claim_seconds"}
    assert post(client, world, {**data, "preset": "full", "name": "旧表单"}).status_code == 302
    assert RuleTemplate.objects.get(club=world.club, name="旧表单").claim_seconds == 15


def test_template_cards_show_the_rules_in_words_not_python_dicts(client, world):
    services.template_create(
        club=world.club, by=world.owner, name="郴州四人", preset="chenzhou", players=4, base_score=1,
        piao_choices=[1, 2], hands_per_session=8, turn_seconds=15, claim_seconds=12,
        options={"min_huxi": 6, "mao_hu": True},
    )
    client.force_login(world.member)
    html = client.get(reverse("clubs:detail", args=[world.club.pk])).content.decode()
    assert "{'" not in html and "{&#x27;" not in html and "True}" not in html
    assert '<span class="badge">郴州跑胡子</span>' in html
    assert "6胡息起胡" in html and "毛胡：0胡息的完整牌型按15胡息计。" in html
    assert "每局前选飘：1/2；输家付输赢双方的飘。" in html and "吃碰胡选择12秒" in html
    english = client.get(reverse("clubs:detail", args=[world.club.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "A win needs at least 6 huxi." in english and "{&#x27;" not in english
