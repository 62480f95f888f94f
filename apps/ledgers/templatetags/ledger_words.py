"""``{{ entry|entry_kind }}``: a ledger entry's kind in the ledger's words (``apps.ledgers.memos``),
for pages of other apps that list ledger entries (the dispute pages)."""

from django import template

from apps.ledgers import memos

register = template.Library()


@register.filter
def entry_kind(entry) -> str:
    return memos.kind_label(entry)
