"""Celery application (settings under the CELERY_ namespace, tasks autodiscovered from the apps)."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("paohuzi")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

# Celery's Django fixup closes the database connection around every task unless this is set, so a
# worker would pay a new PostgreSQL connection per task; tasks drop broken or expired connections
# themselves (close_old_connections).
app.conf["CELERY_DB_REUSE_MAX"] = int(os.environ.get("CELERY_DB_REUSE_MAX", "1000"))
