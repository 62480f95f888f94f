"""Live tables: seats, sessions of hands, the socket, deadlines, bots and 托管.

The route of one move, from the socket to the ledger (each module once, in one direction):

1. ``consumers.TableConsumer.receive`` parses the frame (size, JSON, types) and runs the verb
   ``play.hand_act`` in a database thread (``db_call``), collecting the updates it publishes.
2. ``play.hand_act`` is one unit of work, ``unit.table_action``: ``context.lock`` takes the table
   row lock reading only its key (``rows.lock_key``) and takes the table, seats and hand from
   ``hand_cache`` when the key matches (else from the rows); the verb
   checks (``checks.check_seated``, ``checks.check_act``: the viewer's update number, whose turn, is
   the action legal) and changes (``transitions.do_act``: the engine applies the action, then
   ``session.after_engine`` sets the next deadline or finishes the hand).
3. Leaving the block, ``context.Ctx.save`` writes the rows; ``outbox.Outbox.flush`` appends the
   hash-chained events and writes the changed seats and the table row (``rows.write``: one
   statement on PostgreSQL) and builds one copy of the update per viewer that saw something
   (redacted by the engine; what all viewers share encoded once, ``presenters.encoded_states``),
   sent after the commit.
4. The consumer hands the update to the channel layer (``hub.publish``); each server process with
   sockets at the table is in its group once and receives it once (``hub``), and each of its
   sockets there forwards its own viewer's copy (``TableConsumer.deliver``).
5. When the move ended the hand, ``session.finish_hand`` froze its totals and sent
   ``signals.hand_finished``; apps.ledgers posts the settlement once the transaction commits
   (a Celery task, exactly once). Bots and 托管 seats due next play through the same unit
   (``unit.autoplay``), or on their short deadline (``tasks.fire_deadlines`` -> ``play.deadline_fire``).

A socket's connect is one unit of work too (``services.socket_open``: access, seat online, first
state); ``manage.py move_bench`` measures this whole route's CPU without sockets.

Modules: ``services`` (open, join, leave, bots, ready, piao, presence, 托管, a socket's connect), ``play`` (moves and
time-outs), ``dissolve`` (解散), ``rematch`` (再来一局), ``arranged`` (tables opened by a service, for
matches); ``unit``, ``checks``, ``transitions``, ``session`` (the state machine), ``context``,
``outbox``, ``rows`` (the raw SQL of a move), ``hand_cache``; ``presenters``/``selectors``/
``summary`` (read side); ``consumers``/``hub``/``watch`` (sockets, a process's table groups,
lost-update catch-up); ``verify``
(hash chains and replays); ``eventlog`` (the one reader of a table's events: its rows, or after
compaction its ``archive``); ``engine_io`` (what a live hand asks of apps.engine).
"""
