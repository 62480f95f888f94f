"""Live tables: seats, sessions of hands, the socket, deadlines, bots and 托管.

Rooms, from the top down (each imports only rooms below it; pyproject.toml's import-linter
contract checks it): the entry points at the root (``views``/``urls``, ``tasks``, ``receivers``,
``templatetags``, ``management``), ``live`` (sockets and delivery), ``verbs`` (what a user or a
service does to a table), ``transaction`` (the unit of work around every verb), ``read`` (what a
viewer is shown), ``storage`` (raw SQL, cache, event log), then ``models``, ``signals``,
``stages`` (the timing of a move, stamped along the whole route) and ``i18n`` (page text).

The route of one discard, from the player's socket to the other sockets at the table:

1. ``live.consumers.TableConsumer.receive_json`` checks the frame (id, ``live.limits``: rate and
   a resent move already acknowledged) and runs ``verbs.play.hand_act`` in a database thread
   (``db_call``), with its group sends collected (``collecting``: ``transaction.outbox.deferred_sends``).
2. ``verbs.play.hand_act`` runs in one unit of work, ``transaction.unit.table_action``:
   ``transaction.context.lock`` takes the table row lock reading only its key
   (``storage.rows.lock_key``) and takes the table, seats and hand from ``storage.hand_cache``
   when the key matches (else from the rows and ``storage.eventlog``); the verb checks
   (``transaction.checks.check_seated``, ``check_act``: the viewer's update number
   ``transaction.outbox.view_seq``, the table's own policy, then the engine's ``Hand.check``, which
   parses the wire action and checks it in one call, its typed error's code becoming the refusal's) and changes
   (``transaction.transitions.do_act``: the engine's ``Hand.apply`` applies the discard (its guard is the same ``Hand.refusal``),
   then ``transaction.session.after_engine`` sets the next deadline or finishes the hand).
3. Leaving the block, ``transaction.context.Ctx.save`` hands the events to
   ``transaction.outbox.Outbox.flush``: it hash-chains them, writes them with the changed seats and
   the table row (``storage.rows.write``: one statement on PostgreSQL) and builds one copy of the
   update per viewer who saw something (redacted by the engine; ``read.presenters.encoded_states``
   encodes what all viewers share once, with ``storage.jsontext``); after the commit
   ``outbox.send_group`` puts the message in the collected sends.
4. Back in the event loop, the consumer hands the collected sends to the channel layer
   (``transaction.outbox.publish``, the one way an update reaches it); each server process with
   sockets at the table is in its group once and receives it once (``live.hub``: in table order), and each of its sockets there forwards its own
   viewer's copy (``TableConsumer.deliver`` -> ``table_update``).
5. When the discard ended the hand, ``transaction.session.finish_hand`` froze its totals and sent
   ``signals.hand_finished``; apps.ledgers posts the settlement once the transaction commits (a
   Celery task, exactly once). Bots and 托管 seats due next play through the same unit
   (``transaction.unit.autoplay`` -> ``transaction.transitions.autoplay_step`` ->
   ``transaction.bots.bot_action``), or on their short deadline (``tasks.fire_deadlines`` ->
   ``verbs.play.deadline_fire``).

A socket's connect is one unit of work too (``verbs.services.socket_open``: access, seat online,
first state ``transaction.snapshot.snapshot_of``); ``manage.py move_bench`` measures this whole
route's CPU without sockets.

A 快捷语 or reaction (``{"type": "phrase", "phrase": <id>}``) takes another route, beside the
hand: ``verbs.phrases`` reads the seat and inserts the phrase id (one SELECT, one INSERT, no table
lock, nothing in the hand's log) and sends a ``table.phrase`` group message that every socket at
the table forwards; the ids and their words live in ``phrasebook``.
"""
