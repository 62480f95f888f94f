"""The embedded default: the whole site in one process (``manage.py serve``).

``serve`` runs Daphne with the in-memory channel layer and in-process Celery, and ``runner`` stands
in for Celery beat inside it (deadlines, match rounds, the settlement and audit sweeps);
``demo`` creates the demo club of ``serve --demo``. It sits above every other app: nothing imports it.
"""
