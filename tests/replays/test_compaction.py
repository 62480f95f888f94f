"""Retention (issue #27, "bytes per hand"): old tables' event rows compacted into one archive each.

A compacted table replays, exports (byte for byte) and verifies exactly as before, through the one
reader (apps/tables/storage/eventlog.py) with no event row left; a tampered archive fails verification;
the job never touches a table in play, unsettled or young, reruns as a no-op, keeps its mark, and
a crash between writing the archive and deleting the rows leaves the rows as they were.
"""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from apps.engine.records.verifier import verify_document
from apps.ledgers.models import SweepMark
from apps.replays import retention
from apps.replays.audit import services as audit_services
from apps.replays.export import hand_document, hand_frames, session_document
from apps.replays.verification import checklist, session_checklists
from apps.tables.models import Hand, Table, TableArchive, TableEvent
from apps.tables.read.selectors import seat_play
from apps.tables.storage import archive as archive_codec
from apps.tables.storage import eventlog, records
from tests.replays.helpers import run_command

pytestmark = pytest.mark.django_db

OLD = timedelta(days=400)


def age(table: Table, by: timedelta = OLD) -> Table:
    """Make the table look as if its session ended ``by`` ago."""
    Table.objects.filter(pk=table.pk).update(finished_at=timezone.now() - by)
    table.refresh_from_db()
    return table


def dumped(doc: dict) -> str:
    """An export as the download writes it, without its own time of export."""
    return json.dumps({k: v for k, v in doc.items() if k != "exported_at"}, ensure_ascii=False, indent=1)


def everything(table: Table, hands: list[Hand]) -> dict:
    """What the replays, exports, verification and audit read of a table, as comparable values."""
    hands = [Hand.objects.get(pk=h.pk) for h in hands]
    table = Table.objects.get(pk=table.pk)
    checks, between = session_checklists(table, hands)
    return {
        "hand_exports": [dumped(hand_document(h)) for h in hands],
        "session_export": dumped(session_document(table)),
        "frames": [hand_frames(h) for h in hands],
        "records": [records.hand_record(h) for h in hands],
        "checklists": [[c.as_dict() for c in checklist(h)] for h in hands],
        "session_checklists": [[c.as_dict() for c in checks[h.pk]] for h in hands] + [between],
        "together": [audit_services._together(h) for h in hands],
        "seat_play": seat_play(table_ids=[table.pk]),
    }


def compact_all(**kw) -> retention.Report:
    return retention.compact_due(**kw)


def test_a_compacted_table_replays_exports_and_verifies_as_before(play_table, replay_club):
    table, hands = play_table("full", 3, hands=2, fee=1, piao_choices=(0, 1), piao=True)
    age(table)
    before = everything(table, hands)
    assert all(c["ok"] for checks in before["checklists"] for c in checks)
    rows = TableEvent.objects.filter(table=table).count()
    assert rows == table.seq

    report = compact_all()
    assert [(r.table_id, r.outcome) for r in report.results] == [(table.pk, retention.COMPACTED)]
    assert report.results[0].events == rows and report.results[0].hands == 2
    assert not TableEvent.objects.filter(table=table).exists()  # not one row left
    stored = TableArchive.objects.get(table=table)
    assert (stored.events, stored.last_seq, stored.last_hash, stored.hands) == (rows, table.seq, table.last_hash, 2)
    assert len(stored.data) < stored.raw_bytes
    assert eventlog.describe(table.pk) == {"rows": 0, "archived": rows}

    after = everything(table, hands)
    for key in before:
        assert after[key] == before[key], key  # exports byte-identical, same checks, same frames
    # The engine's standalone verifier passes on the export made from the archive.
    doc = session_document(table)
    assert all(c["ok"] for c in verify_document(doc)), [c for c in verify_document(doc) if not c["ok"]]
    code, out = run_command("verify_hands", "--club", str(replay_club.pk))
    assert code == 0 and "passed 2, failed 0" in out, out


def test_the_replay_pages_work_with_zero_event_rows(play_table, seat_players, client):
    table, hands = play_table("full", 3, hands=2)
    client.force_login(seat_players[1])
    urls = [reverse("replays:frames", args=[hands[0].pk]), reverse("replays:export", args=[hands[1].pk]),
            reverse("replays:table_export", args=[table.pk])]
    before = [client.get(url) for url in urls]
    page_before = client.get(reverse("replays:hand", args=[hands[1].pk]))
    assert page_before.context["checks_ok"] is True
    age(table)
    compact_all()
    assert not TableEvent.objects.filter(table=table).exists()
    for url, old in zip(urls, before, strict=True):
        new = client.get(url)
        assert new.status_code == 200 == old.status_code
        old_doc, new_doc = json.loads(old.content), json.loads(new.content)
        assert dumped(new_doc) == dumped(old_doc), url
    page = client.get(reverse("replays:hand", args=[hands[1].pk]))
    assert page.status_code == 200 and page.context["checks_ok"] is True
    assert page.context["checks"] == page_before.context["checks"]
    assert page.context["data"] == page_before.context["data"]


def test_a_tampered_archive_fails_verification(play_table, replay_club):
    table, hands = play_table("full", 3, hands=2)
    age(table)
    compact_all()
    stored = TableArchive.objects.get(table=table)
    # An edited event, re-compressed with a digest that matches: the archive reads, the chain does not.
    events = archive_codec.decode(stored)
    target = next(e for e in events if e.type == "engine" and e.payload["type"] == "discard" and e.hand_id == hands[1].pk)
    card = "b10" if target.payload["card"] != "b10" else "s1"
    events[target.seq - 1] = target._replace(payload={**target.payload, "card": card})
    forged = archive_codec.encode(table.pk, events)
    TableArchive.objects.filter(pk=stored.pk).update(data=forged["data"], digest=forged["digest"])
    checks = {c.key: c for c in checklist(Hand.objects.get(pk=hands[1].pk))}
    assert not checks["chain"].ok and f"seq {target.seq}" in checks["chain"].detail
    assert not checks["replay"].ok
    assert all(c.ok for c in checklist(Hand.objects.get(pk=hands[0].pk)))  # hand 1 is untouched
    code, out = run_command("verify_hands", "--club", str(replay_club.pk))
    assert code == 1 and "passed 1, failed 1" in out and "failed chain: 1" in out, out
    # A byte flipped in the stored value: it no longer matches its digest, and every check says so.
    data = bytearray(stored.data)
    data[len(data) // 2] ^= 0xFF
    TableArchive.objects.filter(pk=stored.pk).update(data=bytes(data), digest=stored.digest)
    checks = checklist(Hand.objects.get(pk=hands[0].pk))
    assert [c.key for c in checks] == ["document"] and not checks[0].ok
    assert "archive of table" in checks[0].detail
    code, out = run_command("verify_hands", "--club", str(replay_club.pk))
    assert code == 1 and "passed 0, failed 2" in out, out


def test_a_damaged_archive_is_a_clear_error_on_every_route(play_table, seat_players, client, make_user, caplog):
    """A byte flipped in a stored archive: the replay page says the record is damaged and shows the
    checks (in Chinese), each JSON route answers a clear error instead of a partial document, the
    server logs it, and nothing is written."""
    from apps.replays.models import ShareCode
    from apps.replays.services import share_create

    table, hands = play_table("full", 3, hands=2)
    client.force_login(seat_players[1])
    share = share_create(user=seat_players[1], hand=Hand.objects.get(pk=hands[1].pk))
    age(table)
    compact_all()
    stored = TableArchive.objects.get(table=table)
    data = bytearray(stored.data)
    data[len(data) // 2] ^= 0xFF
    TableArchive.objects.filter(pk=stored.pk).update(data=bytes(data))
    shares = ShareCode.objects.count()
    for route in (reverse("replays:hand", args=[hands[1].pk]), reverse("replays:share_open", args=[share.code])):
        response = client.get(route, HTTP_ACCEPT_LANGUAGE="zh-hans")
        assert response.status_code == 500, route
        page = response.content.decode()
        assert "这一局的存档已损坏" in page and 'id="damaged"' in page, route
        assert 'data-key="document"' in page and 'class="check bad"' in page, route
    jsons = [reverse("replays:frames", args=[hands[0].pk]), reverse("replays:export", args=[hands[1].pk]),
             reverse("replays:table_export", args=[table.pk]), reverse("replays:share_export", args=[share.code])]
    for route in jsons:
        response = client.get(route, HTTP_ACCEPT_LANGUAGE="zh-hans")
        assert response.status_code == 500 and response["Content-Type"].startswith("application/json"), route
        body = json.loads(response.content)
        assert body["error"] == "record_damaged" and "存档已损坏" in body["message"], route
        assert "Content-Disposition" not in response, route
    assert sum("stored record is damaged" in r.getMessage() for r in caplog.records) == 6
    assert TableArchive.objects.get(pk=stored.pk).data == bytes(data)
    assert not TableEvent.objects.filter(table=table).exists() and ShareCode.objects.count() == shares


def test_the_job_never_compacts_a_table_in_play_unsettled_or_young(play_table):
    ended, _ = play_table("full", 3, hands=1)
    young, _ = play_table("chenzhou", 2, hands=1)
    unsettled, (settled,) = play_table("full", 3, hands=1)
    # A finished hand the ledger has not posted yet (its task still queued): a copy with no transaction.
    Hand.objects.create(**{f.attname: getattr(settled, f.attname) for f in Hand._meta.concrete_fields
                           if not f.primary_key} | {"number": 2})
    live, _ = play_table("full", 3, hands=2, play=1)  # hand 1 over, hand 2 not dealt: the table is open
    for table in (ended, unsettled):
        age(table)
    Table.objects.filter(pk=live.pk).update(finished_at=timezone.now() - OLD)  # even with an old end time
    age(unsettled, OLD + timedelta(days=1))  # the oldest: it holds the mark back
    report = compact_all()
    outcome = {r.table_id: (r.outcome, r.reason) for r in report.results}
    assert outcome == {ended.pk: (retention.COMPACTED, ""), unsettled.pk: (retention.SKIPPED, "unsettled")}
    assert report.mark_after == Table.objects.get(pk=unsettled.pk).finished_at
    for table in (live, young, unsettled):
        assert TableEvent.objects.filter(table=table).count() == table.seq
        assert not TableArchive.objects.filter(table=table).exists()
    # Asked directly (under the row lock), each says why not.
    cutoff = timezone.now() - timedelta(days=retention.compact_after_days())
    assert retention.compact_table(live.pk, cutoff=cutoff).reason == "in play"
    assert retention.compact_table(young.pk, cutoff=cutoff).reason == "too young"
    assert retention.compact_table(ended.pk, cutoff=cutoff).reason == "already compacted"


def test_a_rerun_is_a_no_op_and_the_mark_advances(play_table, django_assert_max_num_queries):
    first, hands = play_table("full", 3, hands=1)
    second, _ = play_table("chenzhou", 2, hands=1)
    age(first)
    age(second, OLD - timedelta(days=1))
    now = timezone.now()
    report = compact_all(now=now)
    assert len(report.of(retention.COMPACTED)) == 2
    cutoff = now - timedelta(days=retention.compact_after_days())
    assert report.mark_before is None and report.mark_after == cutoff
    assert SweepMark.objects.get(name=retention.SWEEP).mark == cutoff
    archives = list(TableArchive.objects.order_by("pk").values_list("pk", "digest"))
    with django_assert_max_num_queries(8):  # the mark, one empty page, the mark saved: no table read
        again = compact_all(now=now + timedelta(days=1))
    assert again.results == [] and again.mark_after == cutoff + timedelta(days=1)
    assert list(TableArchive.objects.order_by("pk").values_list("pk", "digest")) == archives
    # The mark is why the run read nothing: a table that (by its end time) was done long before the
    # mark is not looked at again by the daily run; a run for one club (no mark) still finds it.
    third, _ = play_table("luzhou", 4, hands=1)
    age(third, OLD + timedelta(days=30))
    assert compact_all(now=now + timedelta(days=2)).results == []
    code, out = run_command("compact_events", "--club", str(third.club_id))
    assert code == 0 and f"table {third.pk} " in out and "1 compacted" in out, out
    assert SweepMark.objects.get(name=retention.SWEEP).mark == cutoff + timedelta(days=2)  # --club left it


def test_a_crash_between_the_archive_and_the_row_delete_leaves_the_rows(play_table, monkeypatch):
    table, hands = play_table("full", 3, hands=2)
    age(table)
    before = everything(table, hands)

    def crash(table_id, last_seq):
        assert TableArchive.objects.filter(table_id=table_id).exists()  # written and checked by now
        raise RuntimeError("killed")

    with monkeypatch.context() as patch:
        patch.setattr(archive_codec, "drop_rows", crash)
        with pytest.raises(RuntimeError, match="killed"):
            compact_all()
    assert not TableArchive.objects.filter(table=table).exists()
    assert TableEvent.objects.filter(table=table).count() == table.seq
    assert everything(table, hands) == before
    assert [r.outcome for r in compact_all().results] == [retention.COMPACTED]  # the next run does it
    assert everything(table, hands) == before


def test_a_broken_log_keeps_its_rows_and_does_not_hold_the_mark(play_table):
    table, hands = play_table("full", 3, hands=1)
    age(table)
    ev = TableEvent.objects.filter(hand=hands[0], type="engine").order_by("seq").last()
    TableEvent.objects.filter(pk=ev.pk).update(payload={**ev.payload, "edited": True})
    now = timezone.now()
    report = compact_all(now=now)
    assert report.results[0].outcome == retention.SKIPPED
    assert report.results[0].reason.startswith("log broken: hash chain: seq")
    assert not TableArchive.objects.filter(table=table).exists()
    assert TableEvent.objects.filter(table=table).count() == table.seq
    assert report.mark_after == now - timedelta(days=retention.compact_after_days())


def test_the_command_dry_run_and_options(play_table, replay_club):
    table, _ = play_table("full", 3, hands=2)
    age(table, timedelta(days=40))
    code, out = run_command("compact_events")
    assert code == 0 and "0 compacted" in out  # 40 days is younger than the default 395
    code, out = run_command("compact_events", "--older-than-days", "30", "--dry-run")
    assert code == 0 and f"table {table.pk} " in out and "would compact" in out and "1 would be" in out, out
    assert TableEvent.objects.filter(table=table).count() == table.seq and not TableArchive.objects.exists()
    code, out = run_command("compact_events", "--older-than-days", "30", "--club", str(replay_club.pk + 999))
    assert code == 0 and "0 compacted" in out
    code, out = run_command("compact_events", "--older-than-days", "30")
    assert code == 0, out
    assert f"table {table.pk} " in out and "compacted, " in out and "1 compacted" in out
    assert "bytes of JSON" in out and "ms CPU" in out and f"mark {retention.SWEEP}" in out
    assert TableArchive.objects.filter(table=table).exists() and not TableEvent.objects.filter(table=table).exists()
    code, out = run_command("compact_events", "--older-than-days", "-1")
    assert code == 2


def test_the_task_is_on_beat_daily(settings):
    from apps.replays.tasks import compact_old_events

    entry = settings.CELERY_BEAT_SCHEDULE["replays-compact-old-events"]
    assert entry == {"task": compact_old_events.name, "schedule": 86400.0}
    assert settings.TABLES_COMPACT_AFTER_DAYS == 395


def test_the_task_compacts(play_table):
    from apps.replays.tasks import compact_old_events

    table, _ = play_table("full", 3, hands=1)
    age(table)
    assert compact_old_events.delay().get() == 1
    assert compact_old_events.delay().get() == 0


def test_the_archive_codec_refuses_what_is_not_the_tables_log(play_table):
    table, _ = play_table("full", 3, hands=1)
    rows = eventlog.TableLog(table.pk).stored_rows()
    fields = archive_codec.encode(table.pk, rows)
    assert archive_codec.decode_data(table.pk, fields["data"], fields["digest"]) == rows
    with pytest.raises(archive_codec.ArchiveCorrupt, match="not a paohuzi-log/1 log of that table"):
        archive_codec.decode_data(table.pk + 1, fields["data"], fields["digest"])
    with pytest.raises(archive_codec.ArchiveCorrupt, match="digest"):
        archive_codec.decode_data(table.pk, fields["data"], "0" * 64)
    with pytest.raises(archive_codec.LogBroken, match="gap"):
        archive_codec.replace_rows(table, rows[:3] + rows[4:])


def test_rows_written_after_compaction_are_read_with_the_archive(play_table, seat_players, replay_club):
    """An event row appended after the archive (a table transaction on the old table) is read
    with it. (Nothing a player does appends one: an ended table records no presence.)"""
    from apps.tables.transaction.unit import table_action
    from apps.tables.verbs import services

    table, hands = play_table("full", 3, hands=2)
    age(table)
    before = everything(table, hands)
    compact_all()
    services.seat_set_online(user=seat_players[1], table_id=table.pk, online=True)
    assert TableEvent.objects.filter(table=table).count() == 0
    with table_action(table.pk) as ctx:
        ctx.event("seat.online", {"seat": 1, "online": True})
    table.refresh_from_db()
    stored = TableArchive.objects.get(table=table)
    assert table.seq == stored.last_seq + 1
    assert list(TableEvent.objects.filter(table=table).values_list("seq", "type")) == [(table.seq, "seat.online")]
    after = everything(table, hands)
    for key in ("hand_exports", "frames", "records", "checklists", "together", "seat_play"):
        assert after[key] == before[key], key
    session = json.loads(after["session_export"])
    assert session["chain"]["end_seq"] == table.seq and session["other_events"][-1]["type"] == "seat.online"
    assert all(c["ok"] for checks in after["session_checklists"][:-1] for c in checks)
    assert after["session_checklists"][-1] == []
    code, out = run_command("verify_hands", "--club", str(replay_club.pk))
    assert code == 0, out
    # The job leaves such a table alone (it has its archive); the row stays a row.
    assert compact_all(now=timezone.now() + timedelta(days=1)).results == []


def test_one_hand_is_read_without_parsing_the_whole_archive(play_table):
    table, hands = play_table("full", 3, hands=3)
    rows = eventlog.TableLog(table.pk).stored_rows()
    age(table)
    compact_all()
    log = eventlog.TableLog(table.pk)
    events = log.hand_events(Hand.objects.get(pk=hands[1].pk))
    assert events == [e for e in rows if e.hand_id == hands[1].pk]
    archive = log.archived()
    parsed = {archive.segments[i][2] for i in archive._parsed}
    assert hands[1].pk in parsed and hands[0].pk not in parsed and hands[2].pk not in parsed
    assert log.span([hands[0].pk, hands[2].pk]) == (
        min(e.seq for e in rows if e.hand_id == hands[0].pk), max(e.seq for e in rows if e.hand_id == hands[2].pk))
    assert log.events(1, table.seq) == rows


def test_batches_and_a_limit_go_on_from_the_mark(play_table):
    tables = [play_table("full", 3, hands=1)[0] for _ in range(3)]
    for i, table in enumerate(tables):
        age(table, OLD + timedelta(days=3 - i))  # oldest first
    now = timezone.now()
    first = compact_all(now=now, batch=1, limit=2)  # pages of one table, stopped after two
    assert [r.table_id for r in first.of(retention.COMPACTED)] == [tables[0].pk, tables[1].pk]
    assert first.mark_after == Table.objects.get(pk=tables[1].pk).finished_at
    second = compact_all(now=now, batch=1)
    assert [r.table_id for r in second.results] == [tables[2].pk]  # only what the first left
    assert second.mark_after == now - timedelta(days=retention.compact_after_days())
    assert not TableEvent.objects.filter(table__in=tables).exists()
