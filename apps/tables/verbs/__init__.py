"""What a user or a service does to a table: each verb is one table transaction (``transaction.unit``).

``services`` (open, join, leave, bots, ready, 飘, 托管, online/offline, a socket's connect),
``play`` (a move, and the time-outs that act for a player), ``dissolve`` (解散), ``rematch``
(再来一局), ``arranged`` (tables a service opens and steers, for matches), ``presence`` (the
seats a server process's sockets hold, marked seen; stale ones put offline). Verbs check
(``transaction.checks``) and change (``transaction.transitions``) a locked context; they never
write rows or send updates themselves.
"""
