"""Settings, read from the environment with embedded defaults.

Unset DATABASE_URL -> SQLite in BASE_DIR; unset REDIS_URL -> in-memory channel layer and eager,
in-process Celery. Set them for PostgreSQL, channels_redis and a Redis broker (see README).
"""

import mimetypes
import os
from pathlib import Path

import dj_database_url

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if not value:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


DEBUG = env_bool("DEBUG", False)
SECRET_KEY = os.environ.get("SECRET_KEY") or "dev-insecure-paohuzi-secret-key-change-me-in-production"
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

DJANGO_APPS = [
    "daphne",  # first: its runserver serves ASGI (HTTP + WebSockets)
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
]
THIRD_PARTY_APPS = ["channels"]
LOCAL_APPS = [
    "apps.accounts",
    "apps.clubs",
    "apps.tables",
    "apps.ledgers",
    "apps.matches",
    "apps.replays",
    "apps.replays.audit",
    "apps.embedded",
]
INSTALLED_APPS = DJANGO_APPS + THIRD_PARTY_APPS + LOCAL_APPS

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Database -------------------------------------------------------------------------------
# Connections are kept (CONN_MAX_AGE seconds, default 60) and checked before reuse: a socket's
# database call would otherwise open a new PostgreSQL connection every time, which cost half the
# server's CPU per move (scripts/bench_tables.sh 40: 20.8 -> 10.0 ms per action, one pair of runs). The
# health check drops a connection a PostgreSQL restart broke.
DATABASES = {
    "default": dj_database_url.config(
        env="DATABASE_URL",
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=int(os.environ.get("CONN_MAX_AGE", "60")),
        conn_health_checks=True,
    )
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Auth -----------------------------------------------------------------------------------
AUTH_USER_MODEL = "accounts.User"
LOGIN_URL = "accounts:login"
LOGIN_REDIRECT_URL = "clubs:list"
LOGOUT_REDIRECT_URL = "home"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": 8}},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# --- i18n -----------------------------------------------------------------------------------
LANGUAGE_CODE = "zh-hans"
LANGUAGES = [("zh-hans", "简体中文"), ("en", "English")]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
TIME_ZONE = os.environ.get("TIME_ZONE", "Asia/Shanghai")
USE_TZ = True

# --- Static ---------------------------------------------------------------------------------
STATIC_URL = "/static/"
# The web app manifest (static/manifest.webmanifest: the site on a phone's home screen).
mimetypes.add_type("application/manifest+json", ".webmanifest")
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"

# --- Redis: channel layer, Celery -------------------------------------------------------------
REDIS_URL = os.environ.get("REDIS_URL", "")

if REDIS_URL:
    # Redis pub/sub: a table update is PUBLISHed once and reaches each server process once (the
    # process hands it to its own sockets), instead of being copied into one Redis list per socket.
    # Delivery is at most once either way: every update carries seq and clients resync on a gap.
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {"hosts": [{"address": REDIS_URL}]},
        }
    }
    CELERY_BROKER_URL = REDIS_URL
    CELERY_RESULT_BACKEND = REDIS_URL
    CELERY_TASK_ALWAYS_EAGER = False
    # One cache for every process (rate limits of share-code lookups):
    # with a per-process cache each Daphne would count on its own.
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL,
                          "KEY_PREFIX": "paohuzi"}}
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    CELERY_BROKER_URL = "memory://"
    CELERY_RESULT_BACKEND = "cache+memory://"
    CELERY_TASK_ALWAYS_EAGER = True
    CELERY_TASK_EAGER_PROPAGATES = True

# Seconds a bot or 托管 seat waits before it plays, so people can follow ("0.6,1.2": a random
# delay in that range; "0": at once). Tests play at once.
TABLES_BOT_DELAY = [float(x) for x in os.environ.get("TABLES_BOT_DELAY", "0.6,1.2").split(",") if x.strip()] or [0.0]
# The searching bot (level hard: 托管, match absentees, practice bots set to hard) per decision: at
# most this many CPU milliseconds of its thread, wall milliseconds and sampled worlds (0: no bound).
# The engine's default (apps/engine/search_bot.py DEFAULT_BUDGET), measured in apps/engine/README.md
# "Bot levels": p99 of about 11 ms of CPU per decision on this machine.
TABLES_BOT_SEARCH_MS = float(os.environ.get("TABLES_BOT_SEARCH_MS", "10"))
TABLES_BOT_SEARCH_WALL_MS = float(os.environ.get("TABLES_BOT_SEARCH_WALL_MS", "100"))
TABLES_BOT_SEARCH_WORLDS = int(os.environ.get("TABLES_BOT_SEARCH_WORLDS", "400"))
# Threads per server process that run the table sockets' database calls (apps/tables/consumers.py):
# tables serialise on their row lock, so on PostgreSQL several tables' actions run side by side.
# More threads than that only trade the GIL back and forth: on 2 cores, 2 Daphnes at 100 tables,
# 8 threads cost 8.7 ms of server CPU per action and p99 199 ms, 4 threads 6.6 ms and 107 ms
# (scripts/bench_tables.sh 100, one run each). SQLite has one writer: one thread.
TABLES_DB_THREADS = 1 if DATABASES["default"]["ENGINE"].endswith("sqlite3") else int(
    os.environ.get("TABLES_DB_THREADS", "4"))
# How often a server process checks that its table sockets have seen every update (apps/tables/watch.py).
TABLES_WATCH_SECONDS = float(os.environ.get("TABLES_WATCH_SECONDS", "2"))
# Presence (apps/tables/presence.py): each process marks its sockets' seats as seen this often, and
# a seat online but unseen this long (its process was killed) is put offline.
TABLES_PRESENCE_SECONDS = float(os.environ.get("TABLES_PRESENCE_SECONDS", "10"))
TABLES_PRESENCE_STALE_SECONDS = float(os.environ.get("TABLES_PRESENCE_STALE_SECONDS", "30"))

CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = TIME_ZONE
# Periodic tasks by NAME -> {"task": name, "schedule": seconds}. Celery beat runs them in
# production; `manage.py serve` runs them in an embedded thread. Apps add their entries here.
CELERY_BEAT_SCHEDULE: dict[str, dict] = {}
CELERY_BEAT_SCHEDULE["tables-fire-deadlines"] = {"task": "apps.tables.tasks.fire_deadlines", "schedule": 1.0}
CELERY_BEAT_SCHEDULE["tables-sweep-presence"] = {"task": "apps.tables.tasks.sweep_presence", "schedule": 15.0}
CELERY_BEAT_SCHEDULE["ledgers-sweep-unsettled"] = {"task": "apps.ledgers.tasks.sweep_unsettled", "schedule": 60.0}
CELERY_BEAT_SCHEDULE["matches-start-due"] = {"task": "apps.matches.tasks.start_due_matches", "schedule": 5.0}
CELERY_BEAT_SCHEDULE["matches-advance"] = {"task": "apps.matches.tasks.advance_matches", "schedule": 3.0}
CELERY_BEAT_SCHEDULE["audit-sweep-unrecorded"] = {"task": "apps.replays.audit.tasks.sweep_unrecorded", "schedule": 120.0}

# --- Security (behind a TLS proxy in production) ---------------------------------------------
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", False)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", False)
if env_bool("BEHIND_TLS_PROXY", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {"django": {"handlers": ["console"], "level": "INFO", "propagate": False}},
}

