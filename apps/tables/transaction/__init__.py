"""The table transaction: lock a table, check, change, save, publish after commit.

``unit`` (``table_action``: the unit of work every verb runs in, and ``autoplay`` for due bots and
托管 seats), ``context`` (``lock``: the table row lock and the table, seats and hand loaded or taken
from ``storage.hand_cache``; ``Ctx.save``; ``TableError``), ``checks`` (who may act, the viewer's
update number, table-level policy; the engine checks the action itself), ``transitions`` (the
changes a verb makes: sit, vacate, bots, 托管, a move, deadlines, 解散), ``session`` (the session
state machine: start, 飘, deal, deadlines, settlement, dealer rotation, end), ``bots`` (the engine
bot's choice with the platform's seed salt and search budget), ``outbox`` (the hash-chained events
of one transaction, written with the changed rows, and one update per viewer sent after commit;
``publish``: the one way an update reaches the channel layer),
``snapshot`` (the table as a viewer sees it, read under the lock).
"""
