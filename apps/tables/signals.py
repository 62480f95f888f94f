"""Signals of the tables app; tables never imports its listeners (ledgers, matches).

- ``hand_finished(sender=Hand, hand=<Hand>)`` is sent inside the transaction that finishes a hand;
  receivers (ledgers, the audit) enqueue their work once it commits (``config.celery.send_on_commit``),
  so tables never imports them.
- ``table_finished(sender=Table, table=<Table>, reason=<str>)`` is sent inside the transaction
  that ends a table's session (``reason`` "complete", or why it was dissolved); receivers act on
  commit, as for ``hand_finished``.
- ``session_policy(sender=Table, table=<Table>)`` is asked inside a table transaction when a
  session's next hand could start; a receiver may answer a dict ``{"auto_ready": bool, "hold":
  bool}``: ``auto_ready`` readies every seat ``NEXT_HAND_SECONDS`` after a hand (the "next"
  deadline; sooner if every player taps 下一局), so the next one starts by itself (tables opened by
  ``arranged.arranged_open``); ``hold`` keeps the next hand from starting (a paused
  match) until ``arranged.arranged_release`` is called. Any receiver asking for it wins; no
  receiver, or an answer of None: the usual rules (players click ready).
- ``table_page(sender=Table, table=<Table>, user=<User>)`` is asked when the table page renders;
  the one who arranged the table (a match) may answer a dict ``{"title": str, "back": {"url",
  "label"}, "follow": {"url", "strings"}}``: the page's heading, where its back links lead (the
  match instead of the club), and the endpoint the page polls, once its session is over, to take
  a seated player to his next table (``{"state", "url", "table": {"id", "number", "url"} | None,
  "status"}``), with the words of that panel.
  Arranged tables offer no 再来一局. No answer: the club's table page as usual.
"""

from django.dispatch import Signal

hand_finished = Signal()
table_finished = Signal()
session_policy = Signal()
table_page = Signal()
