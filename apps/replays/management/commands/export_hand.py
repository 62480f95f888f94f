"""``manage.py export_hand HAND_ID [--session]``: print the ``paohuzi-hand/1`` export (EXPORT.md).

Only an ended hand is exported; ``--session`` exports every ended hand of the hand's table, the
chain from the genesis hash. Check the output with ``python -m apps.engine verify FILE``.
"""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from apps.replays.export import hand_document, session_document
from apps.tables.models import Hand
from apps.tables.storage.records import ENDED


class Command(BaseCommand):
    help = "Print the JSON export (paohuzi-hand/1) of an ended hand, or with --session of its table's session."

    def add_arguments(self, parser):
        parser.add_argument("hand_id", type=int)
        parser.add_argument("--session", action="store_true", help="every ended hand of the hand's table")
        parser.add_argument("--compact", action="store_true", help="no indentation")

    def handle(self, *args, **opts):
        hand = Hand.objects.select_related("table").filter(pk=opts["hand_id"]).first()
        if hand is None:
            raise CommandError(f"no hand {opts['hand_id']}", returncode=2)
        if hand.status not in ENDED:
            raise CommandError(f"hand {hand.pk} is still being played: only ended hands are exported", returncode=2)
        doc = session_document(hand.table) if opts["session"] else hand_document(hand)
        indent = None if opts["compact"] else 1
        self.stdout.write(json.dumps(doc, ensure_ascii=False, indent=indent))
