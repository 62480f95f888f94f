"""Keyset pagination: a page costs its size, however deep it is (no OFFSET, no COUNT of history).

A page is asked for by a cursor in the query string: ``?older=<key>`` (the rows after that one in
the list's order) or ``?newer=<key>`` (the rows before it); none is the first page. The key is the
row's integer ordering fields, e.g. ``"812.3301"`` for (transaction id, entry id). An index whose
order is the list's serves each page with one range scan.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlencode

from django.core.exceptions import BadRequest
from django.db.models import Expression, Q, QuerySet
from django.utils.translation import gettext as _


@dataclass
class KeysetPage:
    object_list: list
    older: str | None = None  # the cursor of the next (older) page, if there is one
    newer: str | None = None  # the cursor of the previous (newer) page, if there is one
    query: dict = field(default_factory=dict)  # the other query parameters, kept by the links

    @property
    def has_other_pages(self) -> bool:
        return bool(self.older or self.newer)

    def _link(self, **cursor) -> str:
        return "?" + urlencode({**self.query, **cursor})

    @property
    def older_url(self) -> str | None:
        return self._link(older=self.older) if self.older else None

    @property
    def newer_url(self) -> str | None:
        return self._link(newer=self.newer) if self.newer else None

    @property
    def first_url(self) -> str:
        return "?" + urlencode(self.query)

    def __iter__(self):
        return iter(self.object_list)

    def __len__(self) -> int:
        return len(self.object_list)


def _parse(raw: str, n: int) -> tuple[int, ...]:
    parts = raw.split(".")
    if len(parts) != n or not all(p.isdigit() and len(p) <= 19 for p in parts):
        raise BadRequest(_("This page link is not valid."))
    return tuple(int(p) for p in parts)


def _after(keys: list[tuple[str, bool]], values: tuple[int, ...], forward: bool, also: tuple[str, ...] = ()) -> Q:
    """Rows strictly after ``values`` in the list's order (``forward``) or strictly before it.
    ``also``: names of columns equal to the first key, bounded like it."""
    q = Q()
    for i in range(len(keys) - 1, -1, -1):
        name, descending = keys[i]
        op = "lt" if descending == forward else "gt"
        step = Q(**{f"{name}__{op}": values[i]})
        q = step if i == len(keys) - 1 else step | (Q(**{name: values[i]}) & q)
    # a redundant bound on the first key keeps it a range scan of the index
    bound = "lte" if keys[0][1] == forward else "gte"
    for name in (keys[0][0], *also):
        q = Q(**{f"{name}__{bound}": values[0]}) & q
    return q


def keyset_page(qs: QuerySet, *, keys: list[tuple[str, bool]], size: int, params,
                first_key_also: Expression | None = None) -> KeysetPage:
    """One page of ``qs`` ordered by ``keys`` ([(field, descending)], integer fields, the last one
    unique), from the request's ``params`` (``older``/``newer``; the other ones are kept in links).
    At most one query of ``size + 1`` rows; a malformed cursor is a 400.

    ``first_key_also``: another column of the query equal to the first key (the other side of a
    join on it), bounded too. PostgreSQL does not carry an inequality across a join's equality, and
    may otherwise walk the joined table from its newest row to reach a deep page."""
    query = {k: v for k, v in params.items() if k not in ("older", "newer", "page")}
    order = [f"-{name}" if desc else name for name, desc in keys]
    reverse = [name if desc else f"-{name}" for name, desc in keys]
    older, newer = params.get("older"), params.get("newer")
    if first_key_also is not None and (older or newer):
        qs = qs.alias(_keyset_first_also=first_key_also)
        also = ("_keyset_first_also",)
    else:
        also = ()
    if newer:
        rows = list(qs.filter(_after(keys, _parse(newer, len(keys)), forward=False, also=also))
                    .order_by(*reverse)[: size + 1])
        more_newer = len(rows) > size
        rows = rows[:size][::-1]
        page = KeysetPage(rows, query=query)
        page.newer = _cursor(rows[0], keys) if more_newer and rows else None
        page.older = _cursor(rows[-1], keys) if rows else None
        return page
    if older:
        rows = list(qs.filter(_after(keys, _parse(older, len(keys)), forward=True, also=also))
                    .order_by(*order)[: size + 1])
    else:
        rows = list(qs.order_by(*order)[: size + 1])
    page = KeysetPage(rows[:size], query=query)
    if len(rows) > size:
        page.older = _cursor(page.object_list[-1], keys)
    if older and page.object_list:
        page.newer = _cursor(page.object_list[0], keys)
    return page


def _cursor(row, keys: list[tuple[str, bool]]) -> str:
    values = []
    for name, _desc in keys:
        value = row
        for part in name.split("__"):
            value = getattr(value, part)
        values.append(str(value))
    return ".".join(values)
