"""The rule template form without JSON: the preset by name, each preset's options as fields, piao
choices that switch piao on, errors in the user's language, the advanced JSON field, claim time."""

from __future__ import annotations

import pytest
from django.urls import reverse

from apps.clubs import services
from apps.clubs.forms import RuleTemplateForm
from apps.clubs.models import RuleTemplate

MAIN = {
    "name": "新模板",
    "players": "3",
    "base_score": "1",
    "hands_per_session": "8",
    "turn_seconds": "15",
    "claim_seconds": "15",
    "piao_choices": "",
    "fee": "0",
    "fee_payer": "each",
    "options": "",
}


def opt(preset: str, **values) -> dict:
    """POST data of a preset's option fields (a checked box is "on"; an unchecked one is absent)."""
    data = {}
    for name, value in values.items():
        if value is False:
            continue
        data[f"opt_{preset}_{name}"] = "on" if value is True else str(value)
    return data


def post(client, world, data: dict, lang: str = "zh-hans"):
    url = reverse("clubs:template_create", args=[world.club.pk])
    return client.post(url, data, HTTP_ACCEPT_LANGUAGE=lang)


def saved(world) -> RuleTemplate:
    return RuleTemplate.objects.get(club=world.club, name=MAIN["name"])


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


# ---- the advanced JSON field --------------------------------------------------------------------

JSON_BAD = [
    ("{not json", "这不是有效的 JSON（第1行，第2列）", "This is not valid JSON (line 1, column 2)"),
    ("[1, 2]", "选项必须是", 'Options must be a JSON object such as {&quot;min_huxi&quot;: 10}.'),
    ('{"nope": 1}', "没有“nope”这个选项", "&quot;nope&quot; is not an option."),
    ('{"min_huxi": "abc"}', "“min_huxi”必须是整数", "&quot;min_huxi&quot; must be a whole number."),
    ('{"chou_hu": 1}', "“chou_hu”只能是 true 或 false", "&quot;chou_hu&quot; must be true or false."),
    ('{"players": 4}', "人数请用“人数”一项设置", "Set the number of players with the &quot;Players&quot; field"),
    ('{"mao_hu": true}', "基本花样没有“毛胡”这个选项", "Mao hu is not an option of Basic."),
    ('{"piao": false}', "高级选项关闭了飘", "The advanced options turn piao off"),
]


@pytest.mark.parametrize(("text", "zh", "en"), JSON_BAD)
def test_the_json_field_has_friendly_errors(client, world, text, zh, en):
    client.force_login(world.owner)
    data = {**MAIN, "preset": "basic", "options": text, "piao_choices": "1,2"}
    html = post(client, world, data).content.decode()
    assert zh in html
    english = post(client, world, data, lang="en").content.decode()
    assert en in english
    for leak in ("Expecting", "delimiter", "expected an", "Invalid rules"):  # json / engine English
        assert leak not in html and leak not in english
    assert not RuleTemplate.objects.filter(name=MAIN["name"]).exists()


def test_the_json_field_adds_overrides_the_fields_do_not_have(client, world):
    client.force_login(world.owner)
    data = {**MAIN, "preset": "basic", "options": '{"mingtang_stack": "max", "min_huxi": 12}',
            **opt("basic", min_huxi=15)}
    assert post(client, world, data).status_code == 302
    assert saved(world).options == {"mingtang_stack": "max", "min_huxi": 12}  # the JSON wins


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
    assert initial["options"] == '{"mingtang_stack": "max"}'  # piao follows the piao choices
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
