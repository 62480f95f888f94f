"""Nobody can lock a user out of his account from elsewhere (issue #41): failures lock a
(username, address) pair and an address (IPv6 by its /64), never a username for every address; a
username under guessing from many addresses is bounded by a daily ceiling that never refuses its
user at an address he signed in from."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from apps.accounts import signin
from apps.accounts.models import SignInLockout
from apps.accounts.services import address_key, client_address_key

PASSWORD = "Xk7-paohuzi-pass"
LIMIT = 5
ADDRESS_LIMIT = 10
DAILY = 30
HOME = "203.0.113.7"  # where the owner signs in


@pytest.fixture(autouse=True)
def _throttle(settings):
    settings.SIGNIN_FAILURE_LIMIT = settings.AXES_FAILURE_LIMIT = LIMIT
    settings.SIGNIN_ADDRESS_FAILURE_LIMIT = ADDRESS_LIMIT
    settings.SIGNIN_USERNAME_DAILY_LIMIT = DAILY
    settings.SIGNIN_COOLOFF_SECONDS = 300
    settings.SIGNIN_COOLOFF_MAX_SECONDS = 3600
    settings.BEHIND_TLS_PROXY = False



def _sign_in(client, username, password, ip):
    client.logout()
    return client.post(reverse("accounts:login"), {"username": username, "password": password}, REMOTE_ADDR=ip)


@pytest.fixture
def owner(client, make_user):
    user = make_user("club_owner", password=PASSWORD)
    assert _sign_in(client, "club_owner", PASSWORD, HOME).status_code == 302  # his usual address
    client.logout()
    return user


def _thirty_guesses(client, username="club_owner"):
    """30 failures: 25 IPv4 addresses once each, then 5 addresses inside one IPv6 /64 (one key:
    the 5th locks the pair (username, that /64))."""
    answers = [_sign_in(client, username, f"guess-{i}", f"198.51.100.{i + 1}") for i in range(25)]
    answers += [_sign_in(client, username, f"guess6-{i}", f"2001:db8:7:1::{i + 1:x}") for i in range(5)]
    return answers


def test_address_key_is_the_ipv6_64():
    assert address_key("10.1.2.3") == "10.1.2.3"
    assert address_key("2001:db8:7:1::1") == address_key("2001:db8:7:1:ffff:1:2:3") == "2001:db8:7:1::"
    assert address_key("2001:db8:7:2::1") == "2001:db8:7:2::"
    assert address_key("::ffff:10.1.2.3") == "10.1.2.3"
    assert address_key("nonsense") is None and address_key(None) is None
    assert client_address_key({"REMOTE_ADDR": "2001:db8::5"}) == "2001:db8::"


def test_thirty_guesses_from_elsewhere_do_not_lock_the_owner_out(client, owner):
    answers = _thirty_guesses(client)
    assert all(a.status_code == 200 for a in answers[:25])  # ordinary failed sign-ins
    assert answers[-1].status_code == 429  # the 5th from the /64: that pair is locked
    # the username is now over its daily ceiling: a new address is refused even the right password
    refused = _sign_in(client, "club_owner", PASSWORD, "192.0.2.44")
    assert refused.status_code == 429 and "_auth_user_id" not in client.session
    assert 0 < int(refused["Retry-After"]) <= 24 * 3600
    # ... but the owner at his usual address signs in
    assert _sign_in(client, "club_owner", PASSWORD, HOME).status_code == 302
    assert client.session["_auth_user_id"] == str(owner.pk)
    # the guesser's /64 is throttled, whichever address of it he takes
    assert _sign_in(client, "club_owner", PASSWORD, "2001:db8:7:1::abcd").status_code == 429
    assert SignInLockout.objects.filter(scope="pair", key="club_owner 2001:db8:7:1::", ended_at=None).exists()
    assert SignInLockout.objects.filter(scope="username", key="club_owner", ended_at=None).exists()


def test_the_ceiling_answers_the_same_for_an_unknown_username(client, owner):
    real = _thirty_guesses(client, "club_owner")
    ghost = _thirty_guesses(client, "no_such_user")
    assert [a.status_code for a in real] == [a.status_code for a in ghost]
    token = re.compile(r'name="csrfmiddlewaretoken" value="[^"]+"')
    a = _sign_in(client, "club_owner", "whatever", "192.0.2.50")
    b = _sign_in(client, "no_such_user", "whatever", "192.0.2.51")
    assert a.status_code == b.status_code == 429

    def page(response, name):
        return token.sub("", response.content.decode().replace(name, "X"))

    assert page(a, "club_owner") == page(b, "no_such_user")


def test_the_ceiling_is_per_day(client, owner, later):
    _thirty_guesses(client)
    assert _sign_in(client, "club_owner", PASSWORD, "192.0.2.60").status_code == 429
    later(24 * 3600 + 60)
    assert _sign_in(client, "club_owner", PASSWORD, "192.0.2.60").status_code == 302


def test_under_the_ceiling_a_new_address_signs_in(client, owner):
    for i in range(DAILY - 1):
        _sign_in(client, "club_owner", "x", f"198.51.100.{i + 1}")
    assert _sign_in(client, "club_owner", PASSWORD, "192.0.2.61").status_code == 302


def test_the_owners_typos_lock_only_his_pair(client, owner, make_user):
    make_user("his_wife", password=PASSWORD)
    answers = [_sign_in(client, "club_owner", "typo", HOME) for _ in range(LIMIT)]
    assert answers[-1].status_code == 429
    locked = _sign_in(client, "club_owner", PASSWORD, HOME)
    assert locked.status_code == 429
    retry = int(locked["Retry-After"])
    assert 0 < retry <= 300  # honest: the pair's cool-off
    assert _sign_in(client, "club_owner", PASSWORD, "192.0.2.70").status_code == 302  # another address
    assert _sign_in(client, "his_wife", PASSWORD, HOME).status_code == 302  # the address is not locked
    assert not SignInLockout.objects.filter(scope="address").exists()


def test_an_ipv6_64_is_one_address(client, make_user):
    make_user("neighbour", password=PASSWORD)
    for i in range(ADDRESS_LIMIT):
        _sign_in(client, f"spray{i}", "x", f"2001:db8:9:9::{i + 1:x}")
    assert _sign_in(client, "neighbour", PASSWORD, "2001:db8:9:9:1234::1").status_code == 429
    assert SignInLockout.objects.get(scope="address").key == "2001:db8:9:9::"
    assert _sign_in(client, "neighbour", PASSWORD, "2001:db8:9:a::1").status_code == 302  # the next /64


def test_a_known_ipv6_64_counts_as_the_owners_address(client, make_user):
    make_user("v6_owner", password=PASSWORD)
    assert _sign_in(client, "v6_owner", PASSWORD, "2001:db8:aa:1::10").status_code == 302
    _thirty_guesses(client, "v6_owner")
    # a privacy address of the same /64 is his own address
    assert _sign_in(client, "v6_owner", PASSWORD, "2001:db8:aa:1:5555::1").status_code == 302
    assert _sign_in(client, "v6_owner", PASSWORD, "2001:db8:aa:2::1").status_code == 429


def test_unlock_clears_the_ceiling(client, owner):
    _thirty_guesses(client)
    assert _sign_in(client, "club_owner", PASSWORD, "192.0.2.80").status_code == 429
    signin.unlock(username="club_owner")
    assert _sign_in(client, "club_owner", PASSWORD, "192.0.2.80").status_code == 302
