"""Definition, registration, check-in, waitlist, refunds, cancel, admin actions: bad input changes nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.utils import timezone

from apps.clubs import access
from apps.clubs.models import AuditLog
from apps.clubs.selectors import membership_for
from apps.ledgers.models import Account, Transaction
from apps.matches import selectors, services
from apps.matches.models import Entrant, Match, NeverTogether

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _english():
    """Messages are matched in English here (the site's default language is zh-hans)."""
    from django.utils import translation

    with translation.override("en"):
        yield


def _snapshot():
    return (Match.objects.count(), Entrant.objects.count(), Transaction.objects.count(),
            list(Account.objects.order_by("pk").values_list("balance", flat=True)))


@pytest.mark.parametrize("fields, field", [
    ({"starts_at": timezone.now() - timedelta(minutes=1)}, "starts_at"),
    ({"min_entrants": 6, "max_entrants": 5}, "max_entrants"),
    ({"min_entrants": 2}, "min_entrants"),  # below one table of three
    ({"prize_scheme": {"kind": "percent", "percents": [60, 30]}}, "prize_scheme"),
    ({"prize_scheme": {"kind": "fixed", "amounts": [100, -5]}}, "prize_scheme"),
    ({"entry_fee": -1}, "entry_fee"),
    ({"hands_per_round": 0}, "hands_per_round"),
    ({"name": "  "}, "name"),
    ({"format": "swiss"}, "format"),
    ({"points_by_rank": [1, 2, 3]}, "points_by_rank"),
    ({"format": "elimination", "elim_line": 2000, "elim_start_chips": 1000}, "elim_line"),
    ({"format": "elimination", "elim_rise_by": 0}, "elim_rise_by"),
    ({"format": "knockout", "knockout_top": 3}, "knockout_top"),
    ({"registration_closes_at": timezone.now() + timedelta(hours=2)}, "registration_closes_at"),
])
def test_bad_definitions_are_refused(match_club, make_match, fields, field):
    club, owner, _admin, _players = match_club(3)
    before = _snapshot()
    with pytest.raises(ValidationError) as exc:
        make_match(club, owner, **fields)
    assert field in exc.value.message_dict, exc.value.message_dict
    assert _snapshot() == before


def test_template_of_another_club_and_roles(match_club, make_match, make_template, make_club, make_user):
    club, owner, admin, players = match_club(3)
    other = make_club(name="别家", owner=make_user())
    with pytest.raises(ValidationError) as exc:
        make_match(club, owner, template=make_template(other))
    assert "template" in exc.value.message_dict
    with pytest.raises(PermissionDenied):
        make_match(club, players[0])  # a plain member
    with pytest.raises(PermissionDenied):
        make_match(club, other.owner)  # an owner of another club
    match = make_match(club, admin)  # admins may
    assert match.state == "registering" and match.escrow.kind == "escrow" and match.escrow.key == f"match:{match.pk}"
    assert AuditLog.objects.filter(club=club, action="match.create").count() == 1
    # the rule snapshot does not follow later template edits
    match.template.preset = "basic"
    match.template.save()
    match.refresh_from_db()
    assert match.preset == "full"


def test_register_fee_into_escrow_and_bad_registrations(match_club, make_match, make_user, make_club, mh):
    club, owner, _admin, players = match_club(4)
    match = make_match(club, owner, entry_fee=100)
    entry = services.register(match=match, user=players[0])
    assert entry.status == "registered" and entry.registered_order == 1
    assert mh.balance(club, players[0]) == 900 and mh.escrow_balance(match) == 100
    assert Transaction.objects.filter(idempotency_key=f"match:{match.pk}:fee:{players[0].pk}").count() == 1
    before = _snapshot()
    with pytest.raises(ValidationError, match="already registered"):
        services.register(match=match, user=players[0])
    outsider = make_user()
    with pytest.raises(PermissionDenied):
        services.register(match=match, user=outsider)
    poor = make_user()
    from apps.clubs.models import Membership
    Membership.objects.create(club=club, user=poor)
    with pytest.raises(ValidationError) as exc:
        services.register(match=match, user=poor)
    assert "100" in str(exc.value) and "0" in str(exc.value)  # says what the fee is and what he has
    other_club = make_club(name="别家", owner=make_user())
    other_match = make_match(other_club, other_club.owner, template=None)
    with pytest.raises(PermissionDenied):
        services.register(match=other_match, user=players[1])  # not a member of that club
    assert Transaction.objects.count() == before[2]
    assert Entrant.objects.filter(match=match).count() == 1 and mh.escrow_balance(match) == 100
    assert mh.balance(club, poor) == 0


def test_registration_window(match_club, make_match):
    club, owner, _admin, players = match_club(3)
    now = timezone.now()
    match = make_match(club, owner, registration_opens_at=now + timedelta(minutes=10),
                       registration_closes_at=now + timedelta(minutes=30), starts_at=now + timedelta(hours=1))
    assert match.state == "draft"
    with pytest.raises(ValidationError, match="Registration opens"):
        services.register(match=match, user=players[0])
    services.match_update(match=match, by=owner, name="改名赛")  # editable while a draft
    services.register(match=match, user=players[0], now=now + timedelta(minutes=11))
    match.refresh_from_db()
    assert match.state == "registering" and match.name == "改名赛"
    with pytest.raises(ValidationError, match="edited"):
        services.match_update(match=match, by=owner, name="again")
    # registration closes: the seating seed is committed (its sha256 only is public)
    with pytest.raises(ValidationError, match="Registration has closed"):
        services.register(match=match, user=players[1], now=now + timedelta(minutes=31))
    services.start_due(now=now + timedelta(minutes=31))  # the beat closes registration
    match.refresh_from_db()
    assert match.state == "checking_in" and len(match.seed_hash) == 64 and match.seed == ""


def test_withdraw_refund_and_waitlist_promotion(match_club, make_match, mh):
    club, owner, _admin, players = match_club(5)
    match = make_match(club, owner, min_entrants=3, max_entrants=3, entry_fee=50)
    entries = [services.register(match=match, user=u) for u in players]
    assert [e.status for e in entries] == ["registered"] * 3 + ["waitlisted"] * 2
    assert mh.escrow_balance(match) == 250  # waitlisted entrants pay too
    services.withdraw(match=match, user=players[1])
    assert mh.balance(club, players[1]) == 1000
    statuses = dict(Entrant.objects.filter(match=match).values_list("user_id", "status"))
    assert statuses[players[1].pk] == "withdrawn"
    assert statuses[players[3].pk] == "registered"  # first on the waitlist took the place
    assert statuses[players[4].pk] == "waitlisted"
    with pytest.raises(ValidationError, match="cannot register again"):
        services.register(match=match, user=players[1])
    # the refund is posted once, even if asked again
    with pytest.raises(ValidationError):
        services.withdraw(match=match, user=players[1])
    assert Transaction.objects.filter(idempotency_key__startswith=f"match:{match.pk}:refund:").count() == 1
    # at the start: the waitlisted entrant never promoted and the one who did not check in are refunded
    at = match.starts_at - timedelta(minutes=5)
    for u in (players[0], players[2], players[3]):
        services.check_in(match=match, user=u, now=at)
    mh.start(match)
    assert match.state == "running"
    assert mh.balance(club, players[4]) == 1000
    assert Entrant.objects.get(match=match, user=players[4]).status == "dropped"
    assert mh.escrow_balance(match) == 150


def test_check_in_window_and_no_shows_dropped(match_club, make_match, mh):
    club, owner, _admin, players = match_club(4)
    match = make_match(club, owner)
    for u in players:
        services.register(match=match, user=u)
    with pytest.raises(ValidationError, match="Check-in"):
        services.check_in(match=match, user=players[0])  # an hour early: the window is the last 10 minutes
    at = match.starts_at - timedelta(minutes=9)
    for u in players[:3]:
        services.check_in(match=match, user=u, now=at)
    mh.start(match)
    dropped = Entrant.objects.get(match=match, user=players[3])
    assert dropped.status == "dropped" and dropped.refunded
    assert mh.balance(club, players[3]) == 1000
    assert Entrant.objects.filter(match=match, status="active").count() == 3


def test_too_few_cancels_and_refunds_everyone(match_club, make_match, mh):
    club, owner, _admin, players = match_club(4)
    match = make_match(club, owner, min_entrants=4)
    mh.register_all(match, players[:3])
    mh.start(match)
    assert match.state == "cancelled"
    assert "3" in match.cancel_reason and "4" in match.cancel_reason
    assert all(mh.balance(club, u) == 1000 for u in players)
    match.escrow.refresh_from_db()
    assert match.escrow.closed and match.escrow.balance == 0
    assert mh.audit_clean() == {}


def test_cancel_by_admin_refunds(match_club, make_match, mh):
    club, owner, admin, players = match_club(3)
    match = make_match(club, owner)
    mh.register_all(match, players, check_in=False)
    with pytest.raises(PermissionDenied):
        services.match_cancel(match=match, by=players[0], reason="x")
    with pytest.raises(ValidationError):
        services.match_cancel(match=match, by=admin, reason=" ")
    services.match_cancel(match=match, by=admin, reason="场地维护")
    match.refresh_from_db()
    assert match.state == "cancelled" and match.cancel_reason == "场地维护"
    assert all(mh.balance(club, u) == 1000 for u in players)
    assert AuditLog.objects.filter(club=club, action="match.cancel", actor=admin).exists()
    with pytest.raises(ValidationError, match="ended"):
        services.match_cancel(match=match, by=admin, reason="again")
    assert mh.audit_clean() == {}


def test_free_match_and_fixed_prize_beyond_pool(match_club, make_match, mh):
    club, owner, _admin, players = match_club(3)
    match = make_match(club, owner, entry_fee=0, prize_scheme={"kind": "fixed", "amounts": [30, 10]})
    preview = selectors.prize_preview(match=match)
    assert preview.amounts == [] and preview.pool == 0
    mh.register_all(match, players)
    preview = selectors.prize_preview(match=match)
    assert preview.amounts == [30, 10] and preview.house == -40  # the club pays fixed prizes beyond the pool
    assert Transaction.objects.filter(idempotency_key__startswith=f"match:{match.pk}:").count() == 0


def test_never_together_pairs_and_audit(match_club):
    club, owner, admin, players = match_club(3)
    with pytest.raises(PermissionDenied):
        services.never_together_add(club=club, by=players[0], user_a=players[1], user_b=players[2])
    with pytest.raises(ValidationError):
        services.never_together_add(club=club, by=admin, user_a=players[1], user_b=players[1])
    row = services.never_together_add(club=club, by=admin, user_a=players[2], user_b=players[1])
    assert row.pair == frozenset((players[1].pk, players[2].pk))
    assert row.user_a_id < row.user_b_id
    services.never_together_add(club=club, by=admin, user_a=players[1], user_b=players[2])  # once
    assert NeverTogether.objects.filter(club=club).count() == 1
    services.never_together_remove(club=club, by=owner, user_a=players[1], user_b=players[2])
    assert not NeverTogether.objects.exists()
    assert AuditLog.objects.filter(club=club, action__startswith="match.never_together").count() == 2


def test_pause_needs_running_and_manager(match_club, make_match):
    club, owner, _admin, players = match_club(3)
    match = make_match(club, owner)
    with pytest.raises(ValidationError):
        services.pause(match=match, by=owner)
    with pytest.raises(PermissionDenied):
        services.pause(match=match, by=players[0])


def test_selectors_lists(match_club, make_match):
    club, owner, _admin, players = match_club(3)
    match = make_match(club, owner)
    services.register(match=match, user=players[0])
    assert list(selectors.club_matches(club=club)) == [match]
    assert [e.match_id for e in selectors.my_matches(user=players[0])] == [match.pk]
    assert access.is_manager(membership_for(user=owner, club=club))
    assert not access.is_manager(membership_for(user=players[0], club=club))
    rows = selectors.standings(match=match)
    assert [r.user_id for r in rows] == [players[0].pk]


def test_ledger_audit_flags_a_closed_escrow_that_is_not_zero(match_club, make_match, mh):
    from apps.ledgers.models import EntryKind
    from apps.ledgers.posting import Line, club_account, post_transaction

    club, owner, _admin, players = match_club(3)
    match = make_match(club, owner)
    services.register(match=match, user=players[0])
    services.match_cancel(match=match, by=owner, reason="测试")
    assert mh.audit_clean() == {}
    # a posting into the closed escrow (never done by the services) is caught by the audit
    house = club_account(club_id=club.pk)
    post_transaction(club_id=club.pk, kind="match", idempotency_key="test:stray",
                     lines=[Line(house.pk, -5, EntryKind.PRIZE), Line(match.escrow_id, 5, EntryKind.PRIZE)])
    problems = mh.audit_clean()
    assert list(problems) == ["closed escrow accounts not at zero"]
    assert f"match:{match.pk}" in problems["closed escrow accounts not at zero"][0]


def test_start_due_opens_registration_of_a_draft(match_club, make_match):
    club, owner, _admin, _players = match_club(3)
    now = timezone.now()
    match = make_match(club, owner, registration_opens_at=now + timedelta(minutes=5))
    assert match.state == "draft"
    assert services.start_due(now=now + timedelta(minutes=1)) == []
    assert services.start_due(now=now + timedelta(minutes=6)) == [match.pk]
    match.refresh_from_db()
    assert match.state == "registering"


def test_escrow_account_constraints():
    from django.contrib.auth import get_user_model
    from django.db import IntegrityError, transaction

    from apps.clubs.models import Club
    from apps.ledgers.models import Account

    owner = get_user_model().objects.create_user(username="esc_owner")
    club = Club.objects.create(name="c", owner=owner)
    for bad in ({"kind": "escrow"}, {"kind": "escrow", "key": ""}, {"kind": "escrow", "key": "k", "user": owner},
                {"kind": "club", "key": "k"}, {"kind": "club", "closed": True}):
        with pytest.raises(IntegrityError), transaction.atomic():
            Account.objects.create(club=club, **bad)
    Account.objects.create(club=club, kind="escrow", key="match:x")
    with pytest.raises(IntegrityError), transaction.atomic():
        Account.objects.create(club=club, kind="escrow", key="match:x")
