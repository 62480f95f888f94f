"""Listen to the tables app (tables never imports matches): finished tables advance their match;
arranged match tables start each next hand by themselves and hold it while the match is paused;
a match table's page names the match and leads back to it and on to the next round's table."""

from __future__ import annotations

import logging
from functools import partial

from django.db import transaction

log = logging.getLogger(__name__)


def _advance_quietly(match_id: int) -> None:
    from .services.rounds import advance

    try:
        # play=False: we run inside the committing table's autoplay loop; the new round's 托管
        # seats are played by the beat (advance_matches) or, paced, by their deadlines.
        advance(match_id=match_id, play=False)
    except Exception:  # noqa: BLE001 - the table's move is committed; the beat advances later
        log.exception("advancing match %s failed", match_id)


def on_table_finished(sender, table, reason, **kwargs) -> None:
    """Inside the table's transaction: advance the match once it commits (within seconds of the
    round's last table; ``advance_matches`` is the safety net)."""
    if not table.arranged:  # match tables are arranged tables (apps/tables/verbs/arranged.py)
        return
    from .models import MatchTable

    match_id = MatchTable.objects.filter(table_id=table.pk).values_list("match_id", flat=True).first()
    if match_id is not None:
        transaction.on_commit(partial(_advance_quietly, match_id))


def on_session_policy(sender, table, **kwargs) -> dict | None:
    """A match table: every next hand starts by itself, unless the match is paused."""
    if not table.arranged:
        return None
    from .models import MatchTable

    paused = MatchTable.objects.filter(table_id=table.pk).values_list("match__paused", flat=True).first()
    if paused is None:
        return None
    return {"auto_ready": True, "hold": bool(paused)}


def on_table_page(sender, table, user, **kwargs) -> dict | None:
    """A match table's page: titled by the match, its round and the table number; its back links
    lead to the match; it follows the player to his next table (live.my_table)."""
    if not table.arranged:
        return None
    from django.urls import reverse
    from django.utils.translation import gettext as _

    from .models import MatchTable, RoundKind

    mt = MatchTable.objects.filter(table_id=table.pk).select_related("match", "round").first()
    if mt is None:
        return None
    return {
        "title": MatchTable.title(mt.match.name, final=mt.round.kind == RoundKind.FINAL,
                                  round_number=mt.round.number, number=mt.number),
        "back": {"url": reverse("matches:detail", args=[mt.match_id]), "label": _("Back to the match")},
        "follow": {
            "url": reverse("matches:my_table", args=[mt.match_id]),
            "strings": {
                "next": _("Your next table is ready: table %(n)s."),
                "movingIn": _("Taking you there in %(s)s s…"),
                "go": _("Go to table %(n)s"),
                "stay": _("Stay here"),
                "waiting": _("This table is done. The next round starts when every table of this round has finished."),
                "finished": _("The match is over."),
                "standings": _("See the final standings"),
                "back": _("Back to the match"),
            },
        },
    }


def connect() -> None:
    from apps.tables.signals import session_policy, table_finished, table_page

    table_finished.connect(on_table_finished, dispatch_uid="matches.advance_on_table_finished")
    session_policy.connect(on_session_policy, dispatch_uid="matches.session_policy")
    table_page.connect(on_table_page, dispatch_uid="matches.table_page")
