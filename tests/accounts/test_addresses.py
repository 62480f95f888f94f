"""Seen addresses: recorded at sign-in and when a player opens his table; pairs sharing one."""

from __future__ import annotations

from datetime import timedelta

from django.urls import reverse
from django.utils import timezone

from apps.accounts.models import SeenAddress
from apps.accounts.selectors import shared_address_pairs
from apps.accounts.services import address_seen, client_ip

PASSWORD = "Xk7-paohuzi-pass"


def test_client_ip_accepts_addresses_only():
    assert client_ip({"REMOTE_ADDR": "10.1.2.3"}) == "10.1.2.3"
    assert client_ip({"REMOTE_ADDR": "::1"}) == "::1"
    assert client_ip({"REMOTE_ADDR": "not an ip"}) is None
    assert client_ip({}) is None


def test_sign_in_records_the_address(client, make_user):
    user = make_user("zhao", password=PASSWORD)
    client.post(reverse("accounts:login"), {"username": "zhao", "password": PASSWORD}, REMOTE_ADDR="10.0.0.7")
    client.logout()
    client.post(reverse("accounts:login"), {"username": "zhao", "password": PASSWORD}, REMOTE_ADDR="10.0.0.7")
    row = SeenAddress.objects.get(user=user)
    assert (row.ip, row.count) == ("10.0.0.7", 2)


def test_shared_pairs_within_the_window(make_user):
    a, b, c, d = (make_user() for _ in range(4))
    old = timezone.now() - timedelta(days=40)
    address_seen(user=a, ip="10.0.0.1")
    address_seen(user=b, ip="10.0.0.1")
    address_seen(user=c, ip="10.0.0.2")
    address_seen(user=d, ip="10.0.0.2", at=old)  # outside the 30 days
    pairs = shared_address_pairs(user_ids=[a.pk, b.pk, c.pk, d.pk])
    assert pairs == {frozenset((a.pk, b.pk)): {"10.0.0.1"}}
    assert shared_address_pairs(user_ids=[a.pk, c.pk]) == {}
