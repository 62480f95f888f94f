"""The club tab bar's badge of open disputes (templates/clubs/_nav.html), for those who judge them.

A template tag rather than a value every club view passes: the tab bar is drawn by pages of five
apps, and apps.clubs may not import the audit (ARCHITECTURE.md's layers). One indexed count
(``audit_dispute_queue``) a page, only for the owner, admins and staff."""

from __future__ import annotations

from django import template

from ..models import Dispute, DisputeStatus

register = template.Library()


@register.simple_tag
def open_dispute_count(club) -> int:
    return Dispute.objects.filter(club=club, status=DisputeStatus.OPEN).count()
