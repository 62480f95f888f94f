"""Table fees (桌费) in hand settlement (RULES.md §9.3 settles the points; the fee is a club setting
posted in the same ``hand:<id>`` transaction): who pays in each mode, wins and draws (§9.3 荒庄),
the §2 sit_out sitter, bots, practice tables, exactly-once, zero-sum, leaderboards without fees."""

from __future__ import annotations

import random

import pytest

from apps.ledgers import invariants, selectors, services
from apps.ledgers.models import Account, Entry, Transaction

FEE = 3


def fee_lines(txn):
    """{seat: (member fee amount, club fee amount)} of a transaction's fee lines."""
    out = {}
    for e in txn.entries.filter(kind="fee").select_related("account"):
        member, club = out.get(e.seat, (0, 0))
        if e.account.kind == "club":
            club += e.amount
        else:
            member += e.amount
        out[e.seat] = (member, club)
    return out


def game_points(txn, user):
    return sum(txn.entries.filter(account__user=user, kind__in=["score", "piao"]).values_list("amount", flat=True))


def balance(people, key):
    if key == "house":
        account = Account.objects.filter(club=people["club"], kind="club").first()
    else:
        account = Account.objects.filter(club=people["club"], user=people[key]).first()
    return account.balance if account else 0


def settle(hand):
    assert services.settle_hand(hand_id=hand.pk).status == "posted"
    return Transaction.objects.get(hand=hand)


def test_s9_3_every_player_pays_the_fee_on_a_win_in_the_same_transaction(make_finished_hand, people):
    hand = make_finished_hand(base=2, fee=FEE, fee_payer="each")
    txn = settle(hand)
    assert Transaction.objects.filter(hand=hand).count() == 1
    assert txn.idempotency_key == f"hand:{hand.pk}"
    assert fee_lines(txn) == {0: (-FEE, FEE), 1: (-FEE, FEE), 2: (-FEE, FEE)}
    assert sorted(txn.entries.values_list("kind", flat=True)).count("score") == 3  # the points are there too
    assert sum(txn.entries.values_list("amount", flat=True)) == 0
    for key in ("owner", "member", "other"):
        assert balance(people, key) == game_points(txn, people[key]) - FEE
    assert balance(people, "house") == 3 * FEE
    assert txn.detail["fee"] == {"per_seat": FEE, "payer": "each", "seats": [0, 1, 2]}


def test_s9_3_every_player_pays_the_fee_on_a_draw_and_nothing_else(make_finished_hand, people):
    hand = make_finished_hand(want="draw", options={"piao": True}, piao={0: 5, 1: 5, 2: 5}, fee=FEE)
    txn = settle(hand)
    assert set(txn.entries.values_list("kind", flat=True)) == {"fee"}
    assert fee_lines(txn) == {0: (-FEE, FEE), 1: (-FEE, FEE), 2: (-FEE, FEE)}
    assert txn.detail["draw"] is True and sum(txn.entries.values_list("amount", flat=True)) == 0
    assert [balance(people, k) for k in ("owner", "member", "other", "house")] == [-FEE, -FEE, -FEE, 3 * FEE]


def test_s9_3_winner_only_fee_is_paid_by_the_winner(make_finished_hand, people):
    hand = make_finished_hand(fee=FEE, fee_payer="winner")
    txn = settle(hand)
    winner = hand.result["winner"]
    assert fee_lines(txn) == {winner: (-FEE, FEE)}
    winner_user = [people[k] for k in ("owner", "member", "other")][winner]
    account = Account.objects.get(club=people["club"], user=winner_user)
    assert account.balance == game_points(txn, winner_user) - FEE
    assert balance(people, "house") == FEE
    assert sum(txn.entries.values_list("amount", flat=True)) == 0


def test_s9_3_winner_only_fee_posts_nothing_on_a_draw(make_finished_hand):
    hand = make_finished_hand(want="draw", fee=FEE, fee_payer="winner")
    txn = settle(hand)
    assert not txn.entries.exists() and txn.detail["draw"] is True
    assert "fee" not in txn.detail


@pytest.mark.parametrize("want", ["win", "draw"])
def test_s2_sit_out_sitter_never_pays_the_fee(make_finished_hand, people, want):
    hand = make_finished_hand(preset="luzhou", players=4, want=want, fee=FEE, fee_payer="each")
    txn = settle(hand)
    sitter = (hand.dealer + 2) % 4
    active = [s for s in range(4) if s != sitter]
    assert fee_lines(txn) == {s: (-FEE, FEE) for s in active}
    sitter_user = [people[k] for k in ("owner", "member", "other", "admin")][sitter]
    assert not Entry.objects.filter(account__user=sitter_user).exists()
    assert balance(people, "house") == 3 * FEE


def test_a_bot_seat_on_a_real_table_pays_no_fee(make_finished_hand, people):
    """The club account plays a bot seat; charging it would move points from the club to itself."""
    hand = make_finished_hand(users=[people["owner"], people["member"], None], fee=FEE, fee_payer="each")
    txn = settle(hand)
    assert set(fee_lines(txn)) == {0, 1}
    assert sum(txn.entries.values_list("amount", flat=True)) == 0


@pytest.mark.parametrize("want", ["win", "draw"])
@pytest.mark.parametrize("payer", ["each", "winner"])
def test_practice_tables_post_no_fee(make_finished_hand, want, payer):
    hand = make_finished_hand(practice=True, want=want, fee=FEE, fee_payer=payer)
    txn = settle(hand)
    assert not txn.entries.exists() and txn.detail["practice"] is True
    assert not Account.objects.filter(balance__gt=0).exists()


def test_no_fee_posts_no_fee_lines(make_finished_hand):
    txn = settle(make_finished_hand(fee=0))
    assert not txn.entries.filter(kind="fee").exists()
    assert settle(make_finished_hand(want="draw", fee=0)).entries.count() == 0


@pytest.mark.parametrize("payer", ["each", "winner"])
def test_settling_twice_posts_the_fee_once(make_finished_hand, people, payer):
    hand = make_finished_hand(fee=FEE, fee_payer=payer)
    first = services.settle_hand(hand_id=hand.pk)
    again = services.settle_hand(hand_id=hand.pk)
    assert (first.status, again.status) == ("posted", "already")
    assert first.transaction_id == again.transaction_id
    assert Transaction.objects.filter(hand=hand).count() == 1
    expected_house = FEE * (3 if payer == "each" else 1)
    assert balance(people, "house") == expected_house
    assert Entry.objects.filter(transaction__hand=hand, kind="fee").count() == 2 * (expected_house // FEE)


def test_ledger_audit_passes_with_fees(make_finished_hand):
    table = None
    for want, payer in [("win", "each"), ("draw", "each"), ("win", "winner"), ("draw", "winner")]:
        hand = make_finished_hand(want=want, fee=FEE, fee_payer=payer)
        services.settle_hand(hand_id=hand.pk)
        table = hand.table
    assert table is not None
    report = invariants.run_all()
    assert all(not problems for problems in report.values()), report


def test_leaderboard_points_are_game_points_without_fees(make_finished_hand, people):
    """Fees move balances, not the ranking: a fee-only draw adds a hand but no points."""
    win = make_finished_hand(fee=FEE, fee_payer="each")
    draw = make_finished_hand(want="draw", table=win.table)
    txn = settle(win)
    settle(draw)
    rows = {r.user_id: r for r in selectors.leaderboard(club=people["club"], period="all")}
    for key in ("owner", "member", "other"):
        user = people[key]
        assert rows[user.pk].points == game_points(txn, user)
        assert rows[user.pk].hands == 2
        assert balance(people, key) == game_points(txn, user) - 2 * FEE  # the balance pays both fees


def test_leaderboard_page_says_fees_are_not_counted(client, people, make_finished_hand):
    settle(make_finished_hand(fee=FEE))
    client.force_login(people["member"])
    body = client.get(_url("leaderboard", people["club"]), {"period": "all"}).content.decode()
    assert "不含桌费" in body


def test_points_chart_leaves_fees_out(make_finished_hand, people):
    txn = settle(make_finished_hand(fee=FEE))
    series = selectors.score_series(club=people["club"], user_ids=[people["member"].pk])
    assert series[people["member"].pk][-1][1] == game_points(txn, people["member"])


def test_fee_of_a_hand_played_at_a_table_opened_from_a_template(people, django_capture_on_commit_callbacks):
    """The template's fee reaches the ledger through the table's snapshot (tables.table_open)."""
    from apps.clubs.models import RuleTemplate
    from tests.tables.helpers import open_and_play_hand

    users = [people["owner"], people["member"], people["other"]]
    template = RuleTemplate.objects.create(
        club=people["club"], name="t", preset="full", options={}, players=3, base_score=1,
        piao_choices=[], hands_per_session=1, turn_seconds=15, fee=2, fee_payer="each",
    )
    with django_capture_on_commit_callbacks(execute=True):
        hand = open_and_play_hand(template, users, rng=random.Random(5))
    hand.refresh_from_db()
    txn = Transaction.objects.get(hand=hand)
    assert fee_lines(txn) == {0: (-2, 2), 1: (-2, 2), 2: (-2, 2)}
    for seat, user in enumerate(users):
        game = int((hand.totals or {}).get("total", {}).get(str(seat), 0))
        assert Account.objects.get(club=people["club"], user=user).balance == game - 2


# --- pages and CSV ------------------------------------------------------------------------------


def _url(name, club, **kw):
    from django.urls import reverse

    return reverse(f"ledgers:{name}", kwargs={"club_id": club.pk, **kw})


def test_member_page_shows_fee_lines_as_table_fees(client, people, make_finished_hand):
    txn = settle(make_finished_hand(fee=FEE))
    client.force_login(people["member"])
    response = client.get(_url("mine", people["club"]))
    body = response.content.decode()
    fee_rows = [r for r in response.context["rows"] if r["e"].kind == "fee"]
    assert [r["e"].amount for r in fee_rows] == [-FEE]
    assert body.count('class="entry-fee"') == 1 and '<span class="kind-fee">桌费</span>' in body
    assert response.context["balance"] == game_points(txn, people["member"]) - FEE


def test_club_ledger_shows_fee_income_for_the_filters(client, people, make_finished_hand):
    from apps.clubs.models import Membership

    win = make_finished_hand(fee=FEE, fee_payer="each")
    settle(win)
    settle(make_finished_hand(want="draw", table=win.table))
    client.force_login(people["owner"])
    club = people["club"]
    page = client.get(_url("club", club))
    assert page.context["fee_income"] == 6 * FEE  # two hands, three payers each
    assert "所选日期内的桌费收入" in page.content.decode()
    member = Membership.objects.get(club=club, user=people["member"])
    page = client.get(_url("club", club), {"member": member.pk})
    assert page.context["fee_income"] == 2 * FEE
    assert "来自该成员的桌费收入" in page.content.decode()
    assert client.get(_url("club", club), {"date_to": "2000-01-01"}).context["fee_income"] == 0
    only_fees = client.get(_url("club", club), {"kind": "fee"}).context["rows"]
    assert len(only_fees) == 12 and {r["e"].kind for r in only_fees} == {"fee"}
    assert sum(r["e"].amount for r in only_fees if r["e"].account.kind == "club") == 6 * FEE


def test_csv_export_marks_fee_lines(client, people, make_finished_hand):
    settle(make_finished_hand(fee=FEE, fee_payer="winner"))
    client.force_login(people["admin"])
    response = client.get(_url("club", people["club"]), {"format": "csv", "kind": "fee"})
    rows = b"".join(response.streaming_content).decode().strip().splitlines()
    header = rows[0].split(",")
    kinds = [r.split(",")[header.index("entry_kind")] for r in rows[1:]]
    amounts = sorted(int(r.split(",")[header.index("amount")]) for r in rows[1:])
    assert kinds == ["fee", "fee"] and amounts == [-FEE, FEE]


def test_fee_income_stays_with_managers(client, people, make_finished_hand):
    settle(make_finished_hand(fee=FEE))
    for role, status in {"outsider": 404, "member": 403, "admin": 200, "owner": 200}.items():
        client.force_login(people[role])
        assert client.get(_url("club", people["club"]), {"kind": "fee"}).status_code == status, role
