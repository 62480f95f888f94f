"""Hand settlement (RULES.md §9.3–9.4): lines per seat, piao modes, sitter, draws, exactly-once."""

from __future__ import annotations

import threading

import pytest
from django.db import DatabaseError, connection

from apps.ledgers import services, tasks
from apps.ledgers.models import Account, Entry, Transaction

pg_only = pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="truly concurrent writers need PostgreSQL (SQLite serialises them with a database lock)",
)


def lines_by_seat(txn):
    out = {}
    for e in txn.entries.all():
        out.setdefault(e.seat, {})[e.kind] = e.amount
    return out


def expected(hand, *, mode, piao, base, active):
    """RULES.md §9.3 computed here, independently of the engine's settle."""
    winner = hand.result["winner"]
    points = hand.result["settlement"]["score"] * base
    score = dict.fromkeys(active, 0)
    piao_line = dict.fromkeys(active, 0)
    for loser in active:
        if loser == winner:
            continue
        part = {"both": piao.get(loser, 0) + piao.get(winner, 0), "loser": piao.get(loser, 0),
                "winner": piao.get(winner, 0), None: 0}[mode]
        score[loser] -= points
        score[winner] += points
        piao_line[loser] -= part
        piao_line[winner] += part
    # No line of amount 0 is posted (an absent line is 0): a seat's dict holds its non-zero lines.
    lines = {s: {k: v for k, v in (("score", score[s]), ("piao", piao_line[s])) if v} for s in active}
    return {s: d for s, d in lines.items() if d}


def test_s9_3_score_and_piao_line_per_seat_without_piao(make_finished_hand):
    hand = make_finished_hand(base=2)
    assert services.settle_hand(hand_id=hand.pk).status == "posted"
    txn = Transaction.objects.get(hand=hand)
    assert txn.idempotency_key == f"hand:{hand.pk}"
    assert lines_by_seat(txn) == expected(hand, mode=None, piao={}, base=2, active=[0, 1, 2])
    assert sum(e.amount for e in txn.entries.all()) == 0


@pytest.mark.parametrize("mode", ["both", "loser", "winner"])
def test_s9_3_piao_modes(make_finished_hand, mode):
    piao = {0: 1, 1: 2, 2: 5}
    hand = make_finished_hand(options={"piao": True, "piao_mode": mode}, piao=piao, base=3)
    services.settle_hand(hand_id=hand.pk)
    txn = Transaction.objects.get(hand=hand)
    assert lines_by_seat(txn) == expected(hand, mode=mode, piao=piao, base=3, active=[0, 1, 2])
    piao_total = sum(e.amount for e in txn.entries.filter(kind="piao"))
    score_total = sum(e.amount for e in txn.entries.filter(kind="score"))
    assert piao_total == 0 and score_total == 0


def test_balances_follow_the_entries(make_finished_hand, people):
    hand = make_finished_hand(options={"piao": True}, piao={0: 1, 1: 0, 2: 3})
    services.settle_hand(hand_id=hand.pk)
    for seat, user in enumerate([people["owner"], people["member"], people["other"]]):
        account = Account.objects.get(club=people["club"], user=user)
        assert account.balance == sum(e.amount for e in Entry.objects.filter(account=account))
        assert account.balance == sum(e.amount for e in Entry.objects.filter(account=account, seat=seat))


def test_s9_3_sit_out_sitter_is_untouched(make_finished_hand, people):
    hand = make_finished_hand(preset="luzhou", players=4, options={"piao": True}, piao={0: 1, 1: 1, 2: 1, 3: 1})
    services.settle_hand(hand_id=hand.pk)
    txn = Transaction.objects.get(hand=hand)
    sitter = (hand.dealer + 2) % 4
    assert sitter not in lines_by_seat(txn)
    active = [s for s in range(4) if s != sitter]
    assert lines_by_seat(txn) == expected(hand, mode="both", piao={0: 1, 1: 1, 2: 1, 3: 1}, base=1, active=active)
    sitter_user = [people[k] for k in ("owner", "member", "other", "admin")][sitter]
    assert not Entry.objects.filter(account__user=sitter_user).exists()


def test_s9_3_a_draw_posts_no_entries_but_is_settled(make_finished_hand):
    hand = make_finished_hand(want="draw", options={"piao": True}, piao={0: 5, 1: 5, 2: 5})
    assert services.settle_hand(hand_id=hand.pk).status == "posted"
    txn = Transaction.objects.get(hand=hand)
    assert not txn.entries.exists() and txn.detail["draw"] is True
    assert services.settle_hand(hand_id=hand.pk).status == "already"


def test_practice_table_posts_no_points(make_finished_hand):
    hand = make_finished_hand(practice=True)
    services.settle_hand(hand_id=hand.pk)
    assert not Transaction.objects.get(hand=hand).entries.exists()


def test_unfinished_hand_is_not_settled(make_finished_hand):
    hand = make_finished_hand(status="playing")
    assert services.settle_hand(hand_id=hand.pk).status == "not_finished"
    assert services.settle_hand(hand_id=10**9).status == "missing"
    assert not Transaction.objects.exists()


def test_task_repeated_settles_once(make_finished_hand):
    hand = make_finished_hand()
    assert tasks.settle_hand.apply(args=[hand.pk]).get() == "posted"
    assert tasks.settle_hand.apply(args=[hand.pk]).get() == "already"
    assert tasks.settle_hand.delay(hand.pk).get() == "already"
    assert Transaction.objects.filter(hand=hand).count() == 1


def test_task_crashing_after_writing_then_retried_settles_once(make_finished_hand, monkeypatch):
    """The worker dies after the commit but before the ack: the redelivered task finds the key."""
    hand = make_finished_hand()

    real = tasks.services.settle_hand

    def crash(**kwargs):
        real(**kwargs)
        raise RuntimeError("worker killed after commit")

    monkeypatch.setattr(tasks.services, "settle_hand", crash)
    with pytest.raises(RuntimeError):
        tasks.settle_hand.apply(args=[hand.pk], throw=True)
    assert Transaction.objects.filter(hand=hand).count() == 1
    monkeypatch.undo()
    assert tasks.settle_hand.apply(args=[hand.pk]).get() == "already"
    assert Transaction.objects.filter(hand=hand).count() == 1
    assert Entry.objects.filter(transaction__hand=hand).count() == 3  # three score lines, no "飘 0"


def test_task_crashing_before_commit_leaves_nothing_and_retry_posts(make_finished_hand, monkeypatch):
    hand = make_finished_hand()
    from apps.ledgers import posting

    def boom(lines):
        raise RuntimeError("crash inside the posting transaction")

    monkeypatch.setattr(posting, "_apply_balances", boom)  # the ORM path (SQLite)
    # PostgreSQL posts in one statement: make it fail after its inserts and balance updates ran.
    monkeypatch.setattr(posting, "_PG_SETTLEMENT_TAIL", posting._PG_SETTLEMENT_TAIL.replace("SELECT id FROM txn", "SELECT id / 0 FROM txn"))
    with pytest.raises((RuntimeError, DatabaseError)):
        services.settle_hand(hand_id=hand.pk)
    assert all(a.balance == 0 for a in Account.objects.all())
    assert not Transaction.objects.exists() and not Entry.objects.exists()
    monkeypatch.undo()
    assert services.settle_hand(hand_id=hand.pk).status == "posted"


def test_sweep_settles_a_hand_whose_task_was_lost(make_finished_hand):
    lost = make_finished_hand()
    fresh = make_finished_hand(table=lost.table)
    unfinished = make_finished_hand(table=lost.table, status="playing")
    services.settle_hand(hand_id=fresh.pk)
    assert tasks.sweep_unsettled.apply().get() == 1  # eager: re-enqueued and settled
    assert Transaction.objects.filter(hand=lost).count() == 1
    assert not Transaction.objects.filter(hand=unfinished).exists()
    assert tasks.sweep_unsettled.apply().get() == 0


def test_hand_finished_signal_enqueues_settlement_on_commit(make_finished_hand, django_capture_on_commit_callbacks):
    from apps.tables.models import Hand
    from apps.tables.signals import hand_finished

    hand = make_finished_hand()
    with django_capture_on_commit_callbacks(execute=True):
        hand_finished.send(sender=Hand, hand=hand)
        assert not Transaction.objects.exists()  # nothing before the commit
    assert Transaction.objects.filter(hand=hand).count() == 1


@pg_only
@pytest.mark.django_db(transaction=True)
def test_same_hand_settled_concurrently_yields_one_transaction(make_finished_hand):
    hand = make_finished_hand(options={"piao": True}, piao={0: 1, 1: 2, 2: 3})
    n = 8
    barrier = threading.Barrier(n)
    outcomes, errors = [], []

    def worker():
        try:
            barrier.wait()
            outcomes.append(services.settle_hand(hand_id=hand.pk).status)
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert sorted(outcomes) == ["already"] * (n - 1) + ["posted"]
    assert Transaction.objects.filter(hand=hand).count() == 1
    assert Entry.objects.filter(transaction__hand=hand).count() == 6  # three score, three piao lines (none is 0)
    for account in Account.objects.all():
        assert account.balance == sum(Entry.objects.filter(account=account).values_list("amount", flat=True))


def test_hand_without_a_usable_stored_result_is_replayed(make_finished_hand):
    """The hot path reads the stored engine result; without one the hand is replayed, same lines."""
    from apps.tables.models import Hand

    piao = {0: 1, 1: 2, 2: 5}
    hand = make_finished_hand(options={"piao": True, "piao_mode": "both"}, piao=piao, base=2)
    twin = make_finished_hand(options={"piao": True, "piao_mode": "both"}, piao=piao, base=2, table=hand.table)
    Hand.objects.filter(pk=twin.pk).update(result={"winner": hand.result["winner"]})  # no settlement part
    assert services.settle_hand(hand_id=hand.pk).status == "posted"
    assert services.settle_hand(hand_id=twin.pk).status == "posted"
    fast, replayed = Transaction.objects.get(hand=hand), Transaction.objects.get(hand=twin)
    assert lines_by_seat(fast) == lines_by_seat(replayed) == expected(
        hand, mode="both", piao=piao, base=2, active=[0, 1, 2]
    )
