"""Bench tools of the ``loadtest`` command: ``wsclient`` (a minimal WebSocket client)."""
