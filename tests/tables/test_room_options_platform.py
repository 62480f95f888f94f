"""The room options of RULES.md §3.8, §8.6 and §9.6 at a live table: 逃跑 through the services,
the ledger, the dealer, match tables, old records (issue #26, platform)."""

from __future__ import annotations

import pytest

from apps.engine.play.observer import build_view
from apps.ledgers.models import Entry, Transaction
from apps.tables.read.presenters import legal_of
from apps.tables.storage import records
from apps.tables.transaction.context import TableError
from apps.tables.transaction.outbox import view_seq
from apps.tables.verbs import play, services
from tests.tables.helpers import current, ready_all


def _open_ready(make_template, players, **options):
    template = make_template(hands=3, **options)
    table = services.table_open(user=players[0], template=template)
    for user in players[1:]:
        services.table_join(user=user, table_id=table.pk)
    ready_all(table.pk, players)
    return table


def _escape(table_id, user, seat):
    table, _hand, _eh = current(table_id)
    play.hand_act(user=user, table_id=table_id, seq=view_seq(table, seat), action={"type": "escape"})


def test_escape_from_a_waiting_seat_ends_the_hand_posts_once_zero_sum_and_the_dealer_keeps_the_deal(
        make_template, players, django_capture_on_commit_callbacks):
    """§8.6: any active seat may leave, waited for or not; the ledger posts the penalty split once
    (key hand:<id>), zero-sum; the dealer keeps the deal and the run of draws ends."""
    from apps.ledgers import services as ledger_services

    table = _open_ready(make_template, players, escape_penalty=True)
    table_row, hand, eh = current(table.pk)
    dealer = table_row.dealer
    table_row.consecutive_draws = 2
    table_row.save(update_fields=["consecutive_draws"])
    leaver = next(s for s in range(3) if s not in eh.to_act())  # a seat the hand is not waiting for
    assert {"type": "escape"} in [a.to_wire() for a in eh.legal_actions(leaver)]
    with django_capture_on_commit_callbacks(execute=True):
        _escape(table.pk, players[leaver], leaver)
    table_row, hand, eh = current(table.pk)
    assert hand.status == "finished" and hand.result["escape"] == leaver and "winner" not in hand.result
    assert table_row.dealer == dealer and table_row.consecutive_draws == 0
    penalty = hand.result["penalty"]
    assert penalty >= 8
    txn = Transaction.objects.get(hand=hand)
    assert txn.idempotency_key == f"hand:{hand.pk}"
    assert txn.detail["escape"] == leaver and txn.detail["draw"] is False
    amounts = {e.seat: e.amount for e in Entry.objects.filter(transaction=txn, kind="score")}
    assert amounts[leaver] == -penalty * table_row.base_score
    assert sum(amounts.values()) == 0 and len(amounts) == 3
    assert all(amounts[s] > 0 for s in range(3) if s != leaver)
    assert amounts == {int(k): v for k, v in hand.totals["total"].items()}
    assert ledger_services.settle_hand(hand_id=hand.pk).status == "already"  # exactly once
    assert Transaction.objects.filter(hand=hand).count() == 1
    seats = {s.index: s.score for s in table_row.seats.all()}
    assert seats[leaver] == -penalty
    # The escaped hand verifies like any hand: deal, replay, settlement, and its ledger part.
    from apps.replays.verification import checklist

    failed = [(c.key, c.detail) for c in checklist(hand) if not c.ok]
    assert failed == []


def test_escape_is_refused_when_the_option_is_off(make_template, players):
    table = _open_ready(make_template, players)
    _t, hand, eh = current(table.pk)
    seat = next(s for s in range(3) if s not in eh.to_act())
    with pytest.raises(TableError) as err:
        _escape(table.pk, players[seat], seat)
    assert err.value.code == "escape_off"
    assert current(table.pk)[1].status == "playing"


def test_escape_is_refused_for_another_players_seat(make_template, players):
    table = _open_ready(make_template, players, escape_penalty=True)
    table_row, _hand, _eh = current(table.pk)
    with pytest.raises(TableError) as err:
        play.hand_act(user=players[0], table_id=table.pk, seq=view_seq(table_row, 0), action={"type": "escape"},
                      seat=1)
    assert err.value.code == "not_your_seat"
    assert current(table.pk)[1].status == "playing"


def test_match_tables_never_have_escape(club, players, make_template):
    """§8.6: a match's own absence rules govern: an arranged table's snapshot has the option off,
    nobody is offered escape, and the action is refused."""
    from apps.tables.verbs.arranged import arranged_open

    template = make_template(escape_penalty=True)
    from apps.clubs.models import RuleTemplate

    assert RuleTemplate.objects.get(pk=template.pk).resolve_ruleset().escape_penalty
    table = arranged_open(club=club, users=players, rules=_snapshot(template), hands=1, name="赛桌")
    table.refresh_from_db()
    assert table.ruleset["escape_penalty"] is False and "escape_penalty" not in table.options
    _t, hand, eh = current(table.pk)
    assert all({"type": "escape"} not in [a.to_wire() for a in eh.legal_actions(s)] for s in range(3))
    with pytest.raises(TableError) as err:
        _escape(table.pk, players[1], 1)
    assert err.value.code == "escape_off"


def _snapshot(template):
    from apps.tables.models import Table

    snap = Table()
    snap.copy_rules(template)
    return snap


def test_a_match_definition_drops_escape_from_its_rule_snapshot(club, players, make_template):
    from django.utils import timezone

    from apps.matches.services.definition import validate

    template = make_template(escape_penalty=True, score_cap=10)
    from datetime import timedelta

    now = timezone.now()
    out = validate(club=club, fields={"name": "春季赛", "template": template, "starts_at": now + timedelta(days=1)},
                   now=now)
    assert out["ruleset"]["escape_penalty"] is False and out["ruleset"]["score_cap"] == 10
    assert "escape_penalty" not in out["options"]


def _luzhou4(club, players, make_user, **options):
    """A luzhou 4-player sit_out table (three players and admin1), everyone ready: hand 1 dealt."""
    from apps.clubs.models import Membership, RuleTemplate

    fourth = club.admin_user
    assert Membership.objects.filter(club=club, user=fourth).exists()
    template = RuleTemplate.objects.create(club=club, name="泸州四人", preset="luzhou", options=options, players=4,
                                           base_score=1, piao_choices=[], hands_per_session=2, turn_seconds=15)
    users = [*players, fourth]
    table = services.table_open(user=users[0], template=template)
    for user in users[1:]:
        services.table_join(user=user, table_id=table.pk)
    ready_all(table.pk, users)
    return table, users


def test_old_luzhou_four_player_record_without_bottom_shown_replays_and_verifies(club, players, make_user):
    """§3.8 made bottom_shown the default of luzhou with 4 players. A hand played before (its
    stored ruleset has no bottom_shown key) still rebuilds with it off: its record's options say
    so, the engine replays it, and the table's verification passes."""
    import random

    from apps.engine.records.replay import replay
    from apps.tables.models import Hand
    from apps.tables.storage.verify import verify_hand
    from tests.tables.helpers import play_hand_via_services

    table, users = _luzhou4(club, players, make_user, bottom_shown=False)
    hand = play_hand_via_services(table.pk, users, rng=random.Random(2), kind="greedy")
    assert hand.status == "finished"
    old = {k: v for k, v in hand.ruleset.items() if k not in ("bottom_shown", "escape_penalty", "qi_hu",
                                                                 "score_cap", "forced_win", "remove_cards")}
    Hand.objects.filter(pk=hand.pk).update(ruleset=old)
    hand.refresh_from_db()
    record = records.hand_record(hand)
    assert record["options"] == {"bottom_shown": False}
    replayed = replay(record)
    from apps.tables.storage.jsontext import jsonable

    assert jsonable(replayed.result) == hand.result
    assert verify_hand(hand) is None


def test_luzhou_four_players_shows_the_last_stock_card_to_every_viewer(club, players, make_user):
    """§3.8 by default at a luzhou 4-player table: no reveal card, the bottom card in every view
    (the sitter's and a spectator's too)."""

    table, users = _luzhou4(club, players, make_user)
    _t, hand, eh = current(table.pk)
    assert eh.rs.bottom_shown
    bottom = build_view(eh, None)["bottom_card"]
    assert bottom is not None
    for viewer in (0, 1, 2, 3, None):
        assert build_view(eh, viewer)["bottom_card"] == bottom


def test_the_escape_penalty_is_offered_in_each_players_own_copy_only(make_template, players):
    """§8.6 "What the leaver is told before he confirms": the least he would pay, from his own view
    (the engine's ``view["escape"]["at_least"]`` at base 1) times the table's base, in his own copy
    exactly when ``escape`` is legal for him; a spectator gets none, nor does anybody where the
    option is off. The exact amount (from hidden cards) is never in a copy before the hand ends."""
    import json

    from apps.engine.scoring.settlement import escape_penalty
    from apps.tables.read.presenters import encoded_states

    table = _open_ready(make_template, players, escape_penalty=True)
    row, hand, eh = current(table.pk)
    seats = list(row.seats.order_by("index"))
    states = {v: json.loads(text) for v, text in encoded_states(row, seats, hand, eh, [0, 1, 2, None]).items()}
    window = eh.phase == "claim" and eh.claim is not None
    for seat in range(3):
        part = states[seat]["hand"]
        if window:  # §8.6: no escape while a claim window is open
            assert {"type": "escape"} not in legal_of(part) and "escape" not in part
            continue
        assert {"type": "escape"} in legal_of(part)
        at_least = part["view"]["escape"]["at_least"]
        assert part["escape"] == {"at_least": at_least * row.base_score}
        assert at_least >= 8 and "pays" not in part["escape"]
        seen = sum(part["view"]["huxi"][str(s)] for s in range(3) if s != seat)  # nothing face down yet
        assert at_least == escape_penalty(seen) or any(
            g["cards"][0] is None for s in range(3) if s != seat for g in part["view"]["groups"][str(s)])
    assert "escape" not in states[None]["hand"] and legal_of(states[None]["hand"]) == []


def test_no_escape_penalty_is_offered_where_the_option_is_off(make_template, players):
    import json

    from apps.tables.read.presenters import encoded_states

    plain = _open_ready(make_template, players)
    row, hand, eh = current(plain.pk)
    seats = list(row.seats.order_by("index"))
    for text in encoded_states(row, seats, hand, eh, [0, 1, 2]).values():
        part = json.loads(text)["hand"]
        assert "escape" not in part and {"type": "escape"} not in legal_of(part)


def test_an_escapes_result_is_shown_in_words_in_the_ledger(make_template, players, django_capture_on_commit_callbacks):
    """The ledger line of an escaped hand says so (逃跑), not 荒庄."""
    from django.utils import translation

    from apps.ledgers.memos import describe

    table = _open_ready(make_template, players, escape_penalty=True)
    with django_capture_on_commit_callbacks(execute=True):
        _escape(table.pk, players[2], 2)
    _row, hand, _eh = current(table.pk)
    entry = Entry.objects.filter(transaction__hand=hand).select_related("transaction").first()
    with translation.override("zh-hans"):
        text = describe(entry)
    assert "逃跑" in text and "荒庄" not in text
    others = Entry.objects.filter(transaction__hand=hand).exclude(seat=2).select_related("transaction")
    with translation.override("zh-hans"):
        assert all("有人逃跑" in describe(e) for e in others)


@pytest.mark.parametrize(("payer", "paying"), [("each", 3), ("winner", 0)])
def test_an_escape_with_a_table_fee_charges_it_like_a_hand_without_a_winner(
        make_template, players, payer, paying, django_capture_on_commit_callbacks):
    """An escape has no winner: 每人每局 charges every playing seat, 赢家付 nobody; the whole
    transaction stays zero-sum with the club account."""
    template = make_template(hands=3, escape_penalty=True)
    template.fee, template.fee_payer = 2, payer
    template.save(update_fields=["fee", "fee_payer"])
    table = services.table_open(user=players[0], template=template)
    for user in players[1:]:
        services.table_join(user=user, table_id=table.pk)
    ready_all(table.pk, players)
    with django_capture_on_commit_callbacks(execute=True):
        _escape(table.pk, players[1], 1)
    _row, hand, _eh = current(table.pk)
    entries = list(Entry.objects.filter(transaction__hand=hand))
    assert sum(e.amount for e in entries) == 0
    assert len([e for e in entries if e.kind == "fee" and e.amount < 0]) == paying
    assert sum(e.amount for e in entries if e.kind == "score") == 0
    assert {e.seat: e.amount for e in entries if e.kind == "score"}[1] == -hand.result["penalty"]


def test_a_capped_win_is_posted_capped_and_said_in_words(make_template, players, django_capture_on_commit_callbacks):
    """§9.6 封顶: the ledger posts the capped score (the engine's totals), its transaction keeps the
    cap, and the ledger line says 封顶."""
    import random

    from django.utils import translation

    from apps.ledgers.memos import describe
    from tests.tables.helpers import play_hand_via_services

    template = make_template(hands=6, score_cap=1)
    table = services.table_open(user=players[0], template=template)
    for user in players[1:]:
        services.table_join(user=user, table_id=table.pk)
    capped = None
    for number in range(6):
        ready_all(table.pk, players)
        with django_capture_on_commit_callbacks(execute=True):
            hand = play_hand_via_services(table.pk, players, rng=random.Random(number), kind="greedy")
        if (hand.result.get("settlement") or {}).get("cap"):
            capped = hand
            break
    assert capped is not None, "no capped win in six greedy hands"
    settlement = capped.result["settlement"]
    assert settlement["cap"] == 1 and settlement["score"] == 1
    txn = Transaction.objects.get(hand=capped)
    assert txn.detail["cap"] == 1
    scores = {e.seat: e.amount for e in Entry.objects.filter(transaction=txn, kind="score")}
    assert scores == {int(k): v for k, v in capped.totals["score"].items() if v}
    assert all(v >= -1 for v in scores.values())  # each loser pays at most the cap × base 1
    entry = Entry.objects.filter(transaction=txn).select_related("transaction").first()
    with translation.override("zh-hans"):
        assert "封顶 1" in describe(entry)


def test_a_two_player_table_with_chou_pai_tells_everyone_the_count_and_nobody_the_cards(club, players):
    """§9.6 抽牌: every copy of the state says 20 cards are set aside; none names them."""
    import json

    from apps.clubs.models import RuleTemplate
    from apps.tables.read.presenters import encoded_states

    template = RuleTemplate.objects.create(club=club, name="二人抽牌", preset="luzhou", options={"remove_cards": 20},
                                           players=2, base_score=1, piao_choices=[], hands_per_session=1,
                                           turn_seconds=15)
    table = services.table_open(user=players[0], template=template)
    services.table_join(user=players[1], table_id=table.pk)
    ready_all(table.pk, players[:2])
    row, hand, eh = current(table.pk)
    seats = list(row.seats.order_by("index"))
    for viewer, text in encoded_states(row, seats, hand, eh, [0, 1, None]).items():
        view = json.loads(text)["hand"]["view"]
        assert view["set_aside"] == 20 and view["stock"] == 19, viewer
        assert "set_aside_cards" not in view


def test_the_seat_sitting_the_hand_out_cannot_escape(club, players, make_user):
    """§8.6: escape is for the active seats; the 4-player sitter plays no part in the hand."""
    table, users = _luzhou4(club, players, make_user, escape_penalty=True)
    _t, hand, eh = current(table.pk)
    sitter = next(s for s in range(4) if s not in eh.active_seats)
    with pytest.raises(TableError) as err:
        _escape(table.pk, users[sitter], sitter)
    assert err.value.code == "illegal_action"
    assert current(table.pk)[1].status == "playing"


def test_escape_is_refused_while_a_claim_window_is_open_and_nothing_changes(make_template, players):
    """§8.6: no escape while a shown or discarded card awaits answers (a leaver could dodge a 胡 on
    it); the refusal names the reason and the table, the hand and the log stay as they were."""
    from apps.tables.models import TableEvent

    table = _open_ready(make_template, players, escape_penalty=True)
    for _ in range(200):  # play the seats' first legal non-escape actions until a window opens
        row, hand, eh = current(table.pk)
        assert hand.status == "playing", "the hand ended before any claim window opened"
        if eh.claim_open():
            break
        seat = eh.to_act()[0]
        action = next(a for a in eh.legal_actions(seat) if a.type != "escape")
        play.hand_act(user=players[seat], table_id=table.pk, seq=view_seq(row, seat), action=action.to_wire())
    assert eh.claim_open()
    leaver = next(s for s in range(3) if s not in eh.to_act())
    before = (row.view_seqs, hand.state, row.seq, TableEvent.objects.filter(table_id=table.pk).count())
    with pytest.raises(TableError) as err:
        _escape(table.pk, players[leaver], leaver)
    assert err.value.code == "escape_claim"
    row, hand, eh = current(table.pk)
    assert (row.view_seqs, hand.state, row.seq, TableEvent.objects.filter(table_id=table.pk).count()) == before
