"""``{{ moment|when }}``: a moment in the site's time zone as people write it (12月3日 20:15 /
Dec 3, 20:15), the audit log's format (``apps.clubs.audit.local_time``)."""

from django import template

from apps.clubs.audit import local_time

register = template.Library()


@register.filter
def when(value) -> str:
    return local_time(value) if value else ""
