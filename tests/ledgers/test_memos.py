"""Ledger lines are worded from structured fields (``apps.ledgers.memos``), in the reader's
language; rows posted before ``detail`` carried ``what`` read the same, from their key."""

from __future__ import annotations

import pytest
from django.utils import translation

from apps.ledgers import memos
from apps.ledgers.models import AccountKind, Entry, EntryKind, TransactionKind
from apps.ledgers.posting import Line, post_transaction

pytestmark = pytest.mark.django_db


def _post(accounts, key, *, kind=TransactionKind.MATCH, entry_kind=EntryKind.PRIZE, memo="", detail=None, amount=7):
    txn = post_transaction(club_id=accounts["house"].club_id, kind=kind, idempotency_key=key, memo=memo,
                           detail=detail, lines=[Line(accounts["house"].pk, -amount, entry_kind),
                                                 Line(accounts["member"].pk, amount, entry_kind)]).transaction
    return Entry.objects.select_related("transaction", "account").get(transaction=txn, account=accounts["member"])


@pytest.mark.parametrize(("key", "kwargs", "zh", "en"), [
    ("match:9:prize:2", {"memo": "夜赛: prize #2", "detail": {"match": 9, "match_name": "夜赛", "user": 1}},
     "夜赛：奖金（第2名）", "夜赛: Prize (place 2)"),
    ("match:9:prize:1", {"memo": "夜赛: prize #1", "detail": {"what": "prize", "rank": 1, "match_name": "夜赛"}},
     "夜赛：奖金（第1名）", "夜赛: Prize (place 1)"),
    ("match:9:refund:1", {"entry_kind": EntryKind.REFUND, "memo": "夜赛: refund (cancelled)",
                          "detail": {"match_name": "夜赛", "reason": "cancelled"}},
     "夜赛：退还报名费（比赛取消）", "夜赛: Entry fee refund (match cancelled)"),
    ("match:9:fee:1", {"entry_kind": EntryKind.ENTRY_FEE, "memo": "夜赛: entry fee", "detail": {}},
     "夜赛：报名费", "夜赛: Entry fee"),
    ("match:9:house-out", {"entry_kind": EntryKind.ENTRY_FEE, "memo": "夜赛: pool beyond the prizes",
                           "detail": {"what": "house_out", "match_name": "夜赛"}},
     "夜赛：奖池余额归俱乐部", "夜赛: Prize pool remainder to the club"),
    ("dispute:3", {"kind": TransactionKind.ADJUSTMENT, "entry_kind": EntryKind.ADJUSTMENT,
                   "memo": "申诉 #3：补偿两分", "detail": {"member": 1, "amount": 7}},
     "申诉调整：补偿两分", "Dispute adjustment: 补偿两分"),
    ("adjust:1:abc", {"kind": TransactionKind.ADJUSTMENT, "entry_kind": EntryKind.ADJUSTMENT, "memo": "充值",
                      "detail": {"member": 1, "amount": 7}},
     "上分：充值", "Points added: 充值"),
])
def test_lines_are_worded_from_fields_old_rows_too(accounts, key, kwargs, zh, en):
    entry = _post(accounts, key, **kwargs)
    with translation.override("zh-hans"):
        assert memos.describe(entry) == zh
    with translation.override("en"):
        assert memos.describe(entry) == en


def test_the_kind_column_says_up_or_down_from_either_side(accounts):
    entry = _post(accounts, "adjust:1:down", kind=TransactionKind.ADJUSTMENT, entry_kind=EntryKind.ADJUSTMENT,
                  memo="退还", detail={"member": 1, "amount": -7}, amount=-7)
    house = Entry.objects.select_related("transaction", "account").get(transaction=entry.transaction,
                                                                         account__kind=AccountKind.CLUB)
    with translation.override("zh-hans"):
        assert memos.kind_label(entry) == memos.kind_label(house) == "下分"
        assert memos.describe(entry) == "下分：退还"
        assert str(memos.ENTRY_KIND_LABELS[EntryKind.REFUND]) == "退款"
        assert str(memos.ENTRY_KIND_LABELS[EntryKind.PRIZE]) == "奖金"


def test_a_dispute_adjustment_is_posted_with_structured_detail(make_user, make_club):
    """The resolve service stores the outcome as the memo and ``what: dispute`` (no stored prefix)."""
    from apps.clubs.models import Membership
    from apps.ledgers.services import adjustment_create

    owner, member = make_user("o"), make_user("m")
    club = make_club(owner=owner, members=[member])
    result = adjustment_create(club=club, member=Membership.objects.get(club=club, user=member), amount=3,
                               reason="补偿", by=owner, detail={"what": "dispute", "dispute": 5})
    assert result.transaction.detail == {"what": "dispute", "dispute": 5, "member": member.pk, "amount": 3}
    entry = Entry.objects.select_related("transaction", "account").get(transaction=result.transaction,
                                                                       account__user=member)
    with translation.override("zh-hans"):
        assert memos.describe(entry) == "申诉调整：补偿" and memos.kind_label(entry) == "上分"
