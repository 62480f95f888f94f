"""Periodic task of accounts: the end of each sign-in lockout goes into its audit trail."""

from celery import shared_task

from . import signin


@shared_task(name="apps.accounts.tasks.close_ended_lockouts")
def close_ended_lockouts() -> int:
    return signin.close_ended()
