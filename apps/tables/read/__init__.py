"""The read side: what a viewer is shown, and queries that change nothing.

``presenters`` (a table's state as one viewer sees it, the engine's redacted view inside; what all
viewers share encoded once), ``summary`` (the 大局 summary of a session, per seat), ``selectors`` (who may
look at a table and as whom, club table lists, overdue tables, how seats were played). A locked
read of a viewer's state is ``transaction.snapshot``.
"""
