"""The site can be added to a phone's home screen: a web app manifest with PNG icons (issue #11)."""

from __future__ import annotations

import json
import struct

import pytest
from django.contrib.staticfiles import finders


def _png_size(path: str) -> tuple[int, int]:
    with open(path, "rb") as fh:
        head = fh.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", head[16:24])


def test_the_manifest_names_the_site_and_has_192_and_512_icons():
    manifest = json.loads(open(finders.find("manifest.webmanifest"), encoding="utf-8").read())
    assert manifest["name"] == "跑胡子俱乐部" and manifest["start_url"] == "/" and manifest["display"] == "standalone"
    sizes = {}
    for icon in manifest["icons"]:
        path = finders.find(icon["src"].removeprefix("/static/"))
        assert path, icon["src"]
        if icon["type"] == "image/png":
            sizes[icon["sizes"]] = _png_size(path)
    assert sizes == {"192x192": (192, 192), "512x512": (512, 512)}


@pytest.mark.django_db
def test_every_page_links_the_manifest_served_with_its_type(client):
    page = client.get("/accounts/login/").content.decode()
    assert 'rel="manifest" href="/static/manifest.webmanifest"' in page
    assert 'rel="apple-touch-icon"' in page
    response = client.get("/static/manifest.webmanifest")
    if response.status_code == 404:  # static files served by the embedded server only (DEBUG off here)
        from django.contrib.staticfiles.views import serve
        from django.test import RequestFactory

        response = serve(RequestFactory().get("/static/manifest.webmanifest"), "manifest.webmanifest", insecure=True)
    assert response["Content-Type"] == "application/manifest+json"
