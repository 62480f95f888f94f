"""``config.celery.send_on_commit``: a task is sent once its transaction commits, by this process's
sender thread when there is a broker (a table's database thread does not wait for the broker:
README #29), inline when Celery is eager; never for a rolled-back transaction; a failed send is
logged and breaks nothing."""

from __future__ import annotations

import threading

import pytest
from django.db import transaction

from config import celery


class _Task:
    name = "tests.fake"
    app = celery.app

    def __init__(self, fail: bool = False):
        self.fail, self.sent, self.done = fail, [], threading.Event()

    def delay(self, *args):
        self.sent.append((threading.current_thread().name, args))
        self.done.set()
        if self.fail:
            raise ConnectionError("broker down")


@pytest.fixture
def broker(monkeypatch):
    monkeypatch.setattr(celery.app.conf, "task_always_eager", False)


@pytest.mark.django_db(transaction=True)
def test_with_a_broker_the_sender_thread_sends_after_the_commit(broker):
    task = _Task()
    with transaction.atomic():
        celery.send_on_commit(task, 7)
        assert task.sent == []
    assert task.done.wait(5)
    assert task.sent == [("celery-sender", (7,))]


@pytest.mark.django_db(transaction=True)
def test_a_rolled_back_transaction_sends_nothing(broker):
    task = _Task()
    with pytest.raises(RuntimeError), transaction.atomic():
        celery.send_on_commit(task, 1)
        raise RuntimeError("refused")
    assert not task.done.wait(0.2)


@pytest.mark.django_db(transaction=True)
def test_a_failed_send_is_logged_and_the_next_one_still_goes(broker, caplog):
    bad, good = _Task(fail=True), _Task()
    with transaction.atomic():
        celery.send_on_commit(bad, 1)
        celery.send_on_commit(good, 2)
    assert good.done.wait(5)
    assert bad.sent and good.sent == [("celery-sender", (2,))]
    assert "sending tests.fake(1,) failed" in caplog.text


@pytest.mark.django_db(transaction=True)
def test_eager_celery_runs_the_task_inline_after_the_commit():
    task = _Task()
    with transaction.atomic():
        celery.send_on_commit(task, 3)
        assert task.sent == []
    assert task.sent == [(threading.current_thread().name, (3,))]
