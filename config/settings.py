"""Settings, read from the environment with embedded defaults.

Unset DATABASE_URL -> SQLite in BASE_DIR; unset REDIS_URL -> in-memory channel layer and eager,
in-process Celery. Set them for PostgreSQL, channels_redis and a Redis broker (see README).
"""

import mimetypes
import os
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

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
# SECRET_KEY signs sessions, password-reset and e-mail links: required unless DEBUG is on (the
# development fallback below is public, so a site using it could have any session forged).
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    # pytest sets PYTEST_VERSION in its own process: the test suite runs on the development key.
    if not DEBUG and not os.environ.get("PYTEST_VERSION"):
        raise ImproperlyConfigured(
            "SECRET_KEY is not set: set the SECRET_KEY environment variable to a long random value "
            "(python -c 'import secrets; print(secrets.token_urlsafe(50))'), or DEBUG=true for development.")
    SECRET_KEY = "dev-insecure-paohuzi-secret-key-change-me-in-production"
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
THIRD_PARTY_APPS = ["channels", "axes", "csp"]
LOCAL_APPS = [
    "apps.accounts",
    "apps.clubs",
    "apps.tables",
    "apps.ledgers",
    "apps.matches",
    "apps.replays",
    "apps.replays.audit",
    "apps.replays.review",
    "apps.embedded",
]
INSTALLED_APPS = DJANGO_APPS + THIRD_PARTY_APPS + LOCAL_APPS

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "config.csp.SiteCSPMiddleware",  # outside the others: every response gets the policy
    # Django's SessionMiddleware, plus: a page the database fails (full, down) answers 503 with Retry-After
    "config.unavailable.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "axes.middleware.AxesMiddleware",  # last, as django-axes asks: turns a lockout into its answer
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
                "apps.accounts.context_processors.live",
            ],
        },
    },
]

# --- Database -------------------------------------------------------------------------------
# On PostgreSQL every process (each Daphne, each Celery worker process, beat, `manage.py serve`)
# holds at most DB_POOL_MAX connections: Django's psycopg pool (README "Sizing the database
# connections"). Under ASGI each page runs in a thread of its own, and a connection kept for
# CONN_MAX_AGE stayed with that thread: 10 players loading pages from one Daphne held 99 backends
# and PostgreSQL refused the rest ("too many clients", issue #45). A page or call that finds the pool
# empty waits DB_POOL_TIMEOUT seconds, then fails (config/unavailable.py answers 503). The live
# tables' database threads (TABLES_DB_THREADS, and the watch's one) are counted in DB_POOL_MAX.
# DB_POOL_MAX=0 turns the pool off: connections are then kept CONN_MAX_AGE seconds (default 60),
# one per thread, unbounded. The health check drops a connection a PostgreSQL restart broke.
DATABASES = {
    "default": dj_database_url.config(
        env="DATABASE_URL",
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=int(os.environ.get("CONN_MAX_AGE", "60")),
        conn_health_checks=True,
    )
}
ON_POSTGRESQL = DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"
# Threads per server process that run the table sockets' database calls (apps/tables/live/consumers.py):
# tables serialise on their row lock, so on PostgreSQL several tables' actions run side by side.
# More threads than that only trade the GIL back and forth: on 2 cores, 2 Daphnes at 100 tables,
# 8 threads cost 8.7 ms of server CPU per action and p99 199 ms, 4 threads 6.6 ms and 107 ms
# (scripts/bench_tables.sh 100, one run each). At 300 tables 4 threads starve the process's loop,
# which then takes 36-66 ms to hand a published update on (the slowest 1%); 2 threads keep that
# under 10 ms and gave p99/p50 5.2-6.1 against 6.4-9.0 (5 runs each, README #29). SQLite has one
# writer: one thread.
TABLES_DB_THREADS = 1 if DATABASES["default"]["ENGINE"].endswith("sqlite3") else int(
    os.environ.get("TABLES_DB_THREADS", "2"))
DB_POOL_MAX = int(os.environ.get("DB_POOL_MAX", "8")) if ON_POSTGRESQL else 0
DB_POOL_MIN = int(os.environ.get("DB_POOL_MIN", "1"))
DB_POOL_TIMEOUT = float(os.environ.get("DB_POOL_TIMEOUT", "5"))
# Page requests a process runs at once (config/unavailable.py's gate; 0: no limit): the others wait
# their turn (at most PAGES_WAIT seconds, then 503) instead of racing the tables' threads for the GIL.
# One at a time measured best for the tables' moves under a rush of pages, and pages went as fast
# (scripts/bench_pages.sh, README #45).
PAGES_AT_ONCE = int(os.environ.get("PAGES_AT_ONCE", "1"))
PAGES_WAIT = float(os.environ.get("PAGES_WAIT", "15"))
# Threads (name prefixes) that keep the connection they took from the pool instead of handing it
# back after each call: the live tables' database threads (consumers.DB_EXECUTOR, WATCH_EXECUTOR),
# which measured better so (README #45). "none": every thread returns its connection after each call.
DB_POOL_KEEP_THREADS = tuple(p for p in env_list("DB_POOL_KEEP_THREADS", ["tables-db", "tables-watch"]) if p != "none")
if DB_POOL_MAX:
    if DB_POOL_MAX < TABLES_DB_THREADS + 2:
        raise ImproperlyConfigured(f"DB_POOL_MAX={DB_POOL_MAX}: at least TABLES_DB_THREADS + 2 ({TABLES_DB_THREADS + 2}): "
                                   "the tables' database threads, the watch's thread and one for pages")
    DATABASES["default"].update({"ENGINE": "config.postgresql", "CONN_MAX_AGE": 0})  # (the pool requires 0)
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": min(DB_POOL_MIN, DB_POOL_MAX), "max_size": DB_POOL_MAX, "timeout": DB_POOL_TIMEOUT}
if ON_POSTGRESQL:  # who holds a backend (pg_stat_activity.application_name; scripts/bench_pages.sh)
    DATABASES["default"].setdefault("OPTIONS", {}).setdefault(
        "application_name", os.environ.get("DB_APPLICATION_NAME", "paohuzi"))
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Auth -----------------------------------------------------------------------------------
AUTH_USER_MODEL = "accounts.User"
LOGIN_URL = "accounts:login"
LOGIN_REDIRECT_URL = "clubs:list"
LOGOUT_REDIRECT_URL = "home"
# django-axes first: it refuses a locked-out username or address before any password is checked.
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "django.contrib.auth.backends.ModelBackend"]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": 8}},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# --- Sign-in throttling (django-axes; apps/accounts/signin.py) and other rate limits ---------
# SIGNIN_FAILURE_LIMIT failed sign-ins for one username from one address (the pair), or
# SIGNIN_ADDRESS_FAILURE_LIMIT from one address (IPv6: its /64; more, since a club's members may
# share one), lock that pair or address out for the cool-off: SIGNIN_COOLOFF_SECONDS,
# doubled for each earlier lockout of it in the last 24 hours, at most SIGNIN_COOLOFF_MAX_SECONDS.
# A username is never locked for every address (anyone could lock its owner out): after
# SIGNIN_USERNAME_DAILY_LIMIT failures from all addresses in 24 hours it is refused only at
# addresses its user never signed in from. `manage.py unlock_signin --username U | --address IP`.
SIGNIN_FAILURE_LIMIT = int(os.environ.get("SIGNIN_FAILURE_LIMIT", "5"))
SIGNIN_ADDRESS_FAILURE_LIMIT = int(os.environ.get("SIGNIN_ADDRESS_FAILURE_LIMIT", "20"))
SIGNIN_USERNAME_DAILY_LIMIT = int(os.environ.get("SIGNIN_USERNAME_DAILY_LIMIT", "30"))
SIGNIN_COOLOFF_SECONDS = int(os.environ.get("SIGNIN_COOLOFF_SECONDS", "300"))
SIGNIN_COOLOFF_MAX_SECONDS = int(os.environ.get("SIGNIN_COOLOFF_MAX_SECONDS", "86400"))
AXES_FAILURE_LIMIT = SIGNIN_FAILURE_LIMIT
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"], "ip_address"]  # the pair; the address alone
AXES_COOLOFF_TIME = "apps.accounts.signin.cool_off"
AXES_USE_ATTEMPT_EXPIRATION = True  # each failure keeps the expiry it got: a lockout keeps its end
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False  # tries while locked do not move the end
AXES_HANDLER = "apps.accounts.signin.SignInHandler"
AXES_LOCKOUT_CALLABLE = "apps.accounts.signin.lockout_response"
AXES_CLIENT_IP_CALLABLE = "apps.accounts.signin.request_ip"
AXES_ENABLE_ACCESS_FAILURE_LOG = True  # one row per failure: the username's daily ceiling counts them
AXES_VERBOSE = False  # no start-up banner on every manage.py command; lockouts are logged by signin
# Requests per window (seconds) per user / per address, counted by apps.accounts.ratelimit.
ACCOUNTS_RATES = {
    "signup": {"ip": 10, "window": 3600},
    "password_change": {"user": 5, "ip": 20, "window": 900},
    # reset requests: per address and per username/e-mail typed (whether or not it exists)
    "password_reset": {"ident": 3, "ip": 10, "window": 3600},
    "email_verify": {"user": 5, "ip": 20, "window": 3600},
}

# --- E-mail (password reset, e-mail verification) ---------------------------------------------
# EMAIL_URL: smtp://user:password@host:587/?tls=1 (STARTTLS; ?ssl=1 or smtps:// for TLS from the
# start), console:// or unset (mails are printed on the console), locmem:// (tests).
EMAIL_URL = os.environ.get("EMAIL_URL", "")


def _email_settings(url: str) -> dict:
    from urllib.parse import parse_qs, unquote, urlsplit

    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme in ("", "console"):
        return {"EMAIL_BACKEND": "django.core.mail.backends.console.EmailBackend"}
    if scheme == "locmem":
        return {"EMAIL_BACKEND": "django.core.mail.backends.locmem.EmailBackend"}
    if scheme not in ("smtp", "smtps"):
        raise ImproperlyConfigured(f"EMAIL_URL: unknown scheme {scheme!r} (smtp, smtps, console, locmem)")
    query = {k: v[-1].lower() for k, v in parse_qs(parts.query).items()}
    ssl = scheme == "smtps" or query.get("ssl") in ("1", "true", "yes")
    return {
        "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
        "EMAIL_HOST": parts.hostname or "localhost",
        "EMAIL_PORT": parts.port or (465 if ssl else 25),
        "EMAIL_HOST_USER": unquote(parts.username or ""),
        "EMAIL_HOST_PASSWORD": unquote(parts.password or ""),
        "EMAIL_USE_SSL": ssl,
        "EMAIL_USE_TLS": not ssl and query.get("tls") in ("1", "true", "yes"),
        "EMAIL_TIMEOUT": int(query.get("timeout", "10")),
    }


globals().update(_email_settings(EMAIL_URL))
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "paohuzi@localhost")
SERVER_EMAIL = DEFAULT_FROM_EMAIL
PASSWORD_RESET_TIMEOUT = int(os.environ.get("PASSWORD_RESET_TIMEOUT", str(3 * 3600)))  # e-mailed links
MEMBER_RESET_LINK_HOURS = 24  # the one-time links a club owner makes for a member

# --- Content-Security-Policy (django-csp; config/csp.py adds this site's script, style and
# WebSocket sources per request): nothing else loads, runs, connects or frames.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'none'"],
        "img-src": ["'self'"],
        "font-src": ["'self'"],
        "manifest-src": ["'self'"],
        "form-action": ["'self'"],
        "base-uri": ["'none'"],
        "object-src": ["'none'"],
        "frame-ancestors": ["'none'"],
    },
}

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
# Pub/sub channels' prefix (channels_redis's default). Redis shares pub/sub across its databases.
CHANNEL_PREFIX = "asgi"
# The test suite on several cores (pytest-xdist sets PYTEST_XDIST_WORKER=gw0, gw1, ... in each worker
# and its subprocesses inherit it): worker N uses Redis database REDIS_URL's + N and pub/sub channels
# of its own, so the workers' tables (the same ids, each worker on its own test database) never meet.
_TEST_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
if REDIS_URL and _TEST_WORKER.startswith("gw") and _TEST_WORKER[2:].isdigit():
    from urllib.parse import urlsplit as _urlsplit

    _url = _urlsplit(REDIS_URL)
    _db = int(_url.path.strip("/") or 0) + int(_TEST_WORKER[2:])
    REDIS_URL = _url._replace(path=f"/{_db}").geturl()
    CHANNEL_PREFIX = f"asgi-test{_db}"

if REDIS_URL:
    # Redis pub/sub: a table update is PUBLISHed once and reaches each server process once (the
    # process hands it to its own sockets), instead of being copied into one Redis list per socket.
    # Delivery is at most once either way: every update carries seq and clients resync on a gap.
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {"hosts": [{"address": REDIS_URL}], "prefix": CHANNEL_PREFIX},
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
# The engine's default (apps/engine/bots/search.py DEFAULT_BUDGET), measured in apps/engine/README.md
# "Bot levels": p99 of about 11 ms of CPU per decision on this machine.
TABLES_BOT_SEARCH_MS = float(os.environ.get("TABLES_BOT_SEARCH_MS", "10"))
TABLES_BOT_SEARCH_WALL_MS = float(os.environ.get("TABLES_BOT_SEARCH_WALL_MS", "100"))
TABLES_BOT_SEARCH_WORLDS = int(os.environ.get("TABLES_BOT_SEARCH_WORLDS", "400"))
# How often a server process checks that its table sockets have seen every update (apps/tables/live/watch.py).
TABLES_WATCH_SECONDS = float(os.environ.get("TABLES_WATCH_SECONDS", "2"))
# Presence (apps/tables/verbs/presence.py): each process marks its sockets' seats as seen this often, and
# a seat online but unseen this long (its process was killed) is put offline.
TABLES_PRESENCE_SECONDS = float(os.environ.get("TABLES_PRESENCE_SECONDS", "10"))
TABLES_PRESENCE_STALE_SECONDS = float(os.environ.get("TABLES_PRESENCE_STALE_SECONDS", "30"))
# Where a move's time goes (apps/tables/stages.py): each server process writes its per-stage
# histograms to this folder every watch round (unset: only its log line a minute), and with
# TABLES_TRACE_STAGES=1 each socket update carries its action's stage stamps (the load tool's
# breakdown; off in production).
TABLES_STAGES_DIR = os.environ.get("TABLES_STAGES_DIR", "")
TABLES_TRACE_STAGES = os.environ.get("TABLES_TRACE_STAGES", "") in ("1", "true", "yes")
# A server process's cyclic garbage collector (config/asgi.py): Python's default (700, 10, 10) runs a
# full collection every ~70,000 container allocations, which at 300 tables stalls each server's loop
# for 33-270 ms about four times a run. The start-up heap is frozen, so young collections stay cheap
# and a full collection is rare with these thresholds (scripts/bench_tables.sh 300, README #29).
SERVER_GC_THRESHOLD = tuple(int(x) for x in env_list("SERVER_GC_THRESHOLD", ["50000", "20", "10"]))
# Retention (apps/replays/retention.py): the event rows of a table that ended more than this many
# days ago are compacted, once a day, into one verified archive per table (13 months by default).
TABLES_COMPACT_AFTER_DAYS = int(os.environ.get("TABLES_COMPACT_AFTER_DAYS", "395"))

# 复盘 (apps/replays/review): nominal CPU milliseconds per decision of the engine's reviewer
# (apps/engine/README.md "复盘": 80 costs about 2 s of CPU a 3-player hand). Its task runs on a queue of
# its own, REVIEW_QUEUE, consumed by its own worker (`celery -A config worker -Q review --concurrency 1`),
# never by the worker of the live tables' tasks; the embedded default (no REDIS_URL) runs it in-process.
REVIEW_BUDGET_MS = float(os.environ.get("REVIEW_BUDGET_MS", "80"))
REVIEW_QUEUE = os.environ.get("REVIEW_QUEUE", "review")
# 信息优势 (apps/replays/audit/fairplay.py, issue #44) runs on the same queue: a score weighs each
# decision twice, about 1.2-1.5 s of CPU a hand at 80 ms; a job takes at most FAIRPLAY_MAX_HANDS
# hands of the subject (the most recent of the period). The nightly sweep asks for at most
# FAIRPLAY_SWEEP_MAX_PLAYERS players with at least FAIRPLAY_SWEEP_MIN_HANDS new hands, over the last
# FAIRPLAY_PERIOD_DAYS days (also the period a manager's request defaults to).
FAIRPLAY_BUDGET_MS = float(os.environ.get("FAIRPLAY_BUDGET_MS", "80"))
FAIRPLAY_MAX_HANDS = int(os.environ.get("FAIRPLAY_MAX_HANDS", "100"))
FAIRPLAY_PERIOD_DAYS = int(os.environ.get("FAIRPLAY_PERIOD_DAYS", "30"))
FAIRPLAY_SWEEP_MIN_HANDS = int(os.environ.get("FAIRPLAY_SWEEP_MIN_HANDS", "30"))
FAIRPLAY_SWEEP_MAX_PLAYERS = int(os.environ.get("FAIRPLAY_SWEEP_MAX_PLAYERS", "10"))
CELERY_TASK_ROUTES = {"apps.replays.review.tasks.*": {"queue": REVIEW_QUEUE},
                      "apps.replays.audit.tasks.compute_fairplay": {"queue": REVIEW_QUEUE}}

# One result backend object for all threads of a process (redis-py's client is thread-safe): built
# once at startup (config/warm.py) instead of by each table thread on its first task sent.
CELERY_RESULT_BACKEND_THREAD_SAFE = True
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
CELERY_BEAT_SCHEDULE["accounts-close-ended-lockouts"] = {"task": "apps.accounts.tasks.close_ended_lockouts", "schedule": 60.0}
CELERY_BEAT_SCHEDULE["audit-sweep-unrecorded"] = {"task": "apps.replays.audit.tasks.sweep_unrecorded", "schedule": 120.0}
CELERY_BEAT_SCHEDULE["audit-sweep-fairplay"] = {"task": "apps.replays.audit.tasks.sweep_fairplay", "schedule": 86400.0}
CELERY_BEAT_SCHEDULE["replays-compact-old-events"] = {"task": "apps.replays.tasks.compact_old_events",
                                                      "schedule": 86400.0}

# --- Security: one switch for a site served over HTTPS by its TLS proxy -------------------------
# BEHIND_TLS_PROXY: browsers reach the site over HTTPS through a proxy we run (deploy/nginx), which
# sets X-Forwarded-Proto and X-Forwarded-For itself, overwriting what clients send. On: secure
# cookies, HSTS, the redirect to HTTPS, X-Forwarded-Proto trusted, and the client's address taken
# from X-Forwarded-For (sign-in throttling, rate limits, seen addresses). Off by default, whatever
# ALLOWED_HOSTS says: a Daphne reached without the proxy must not take a client's word for its
# address. Production sets it (README, deploy/env.example).
BEHIND_TLS_PROXY = env_bool("BEHIND_TLS_PROXY", False)
SESSION_COOKIE_SECURE = BEHIND_TLS_PROXY
CSRF_COOKIE_SECURE = BEHIND_TLS_PROXY
SECURE_SSL_REDIRECT = BEHIND_TLS_PROXY
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if BEHIND_TLS_PROXY else None
# HSTS_SECONDS: how long browsers keep to HTTPS once they saw the site (default a year; 0: no
# HSTS header; start with 3600 on a first deployment if unsure).
SECURE_HSTS_SECONDS = int(os.environ.get("HSTS_SECONDS", "31536000")) if BEHIND_TLS_PROXY else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("HSTS_INCLUDE_SUBDOMAINS", True)
SECURE_HSTS_PRELOAD = env_bool("HSTS_PRELOAD", True)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {"django": {"handlers": ["console"], "level": "INFO", "propagate": False},
                # django-axes says INFO about every failure; its lockouts are WARNINGs (and accounts.signin's).
                "axes": {"handlers": ["console"], "level": "WARNING", "propagate": False}},
}

