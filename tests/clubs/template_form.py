"""POSTing the rule template form as a browser does: the main fields (``MAIN``), a preset's option
fields (``opt``), the POST (``post``) and the template it saved (``saved``)."""

from __future__ import annotations

from django.urls import reverse

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
