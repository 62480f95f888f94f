"""Styled 403, 404 and 500 pages in both languages, each with a way back (issue 11)."""

from __future__ import annotations

import pytest
from django.template.loader import render_to_string
from django.test import RequestFactory
from django.utils import translation
from django.views import defaults


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("lang", "texts"),
    [("zh-hans", ("页面不存在", "返回首页")), ("en", ("Page not found", "Back to the home page"))],
)
def test_404_is_styled_and_translated(client, lang, texts):
    response = client.get("/no/such/page/", HTTP_ACCEPT_LANGUAGE=lang)
    assert response.status_code == 404
    body = response.content.decode()
    for text in texts:
        assert text in body
    assert "css/base.css" in body and 'href="/"' in body


@pytest.mark.django_db
@pytest.mark.parametrize(("lang", "title"), [("zh-hans", "无权访问"), ("en", "Not allowed")])
def test_403_is_styled_and_translated(lang, title, make_user):
    request = RequestFactory().get("/x/")
    request.user = make_user()
    with translation.override(lang):
        response = defaults.permission_denied(request, exception=None)
    assert response.status_code == 403
    assert title in response.content.decode()


@pytest.mark.parametrize(("lang", "title"), [("zh-hans", "出错了"), ("en", "Something went wrong")])
def test_500_renders_without_a_request(lang, title):
    with translation.override(lang):
        body = render_to_string("500.html")  # Django renders it with no context at all
    assert title in body and 'href="/"' in body
