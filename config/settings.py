"""Django settings, read from the environment.

Every setting that differs between machines comes from an environment variable; secrets may come
from a file instead (`NAME_FILE`). The embedded default (no variables at all) is a development
set-up: SQLite under var/, Celery tasks run eagerly in-process, an in-memory cache.
"""

from __future__ import annotations

import os
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import environ
from django.core.exceptions import ImproperlyConfigured

from .env import env_bool, env_choice, env_float, env_int, env_list, env_rate, env_str

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = BASE_DIR / "var"
VAR_DIR.mkdir(exist_ok=True)

env = environ.Env()

if "pytest" in sys.modules:
    # pytest-django imports these settings before any conftest.py can set the environment, so the
    # test defaults of the root conftest.py are applied here (explicit variables still win).
    os.environ.setdefault("SECRET_KEY", "test-secret-key-not-for-production")
    os.environ.setdefault("READ_RATE_LIMIT", "100000/minute")
    os.environ.setdefault("READ_RATE_LIMIT_AUTHENTICATED", "100000/minute")
    os.environ.setdefault("WRITE_RATE_LIMIT", "100000/minute")

DEBUG = env_bool("DEBUG", False)

SECRET_KEY = env_str("SECRET_KEY")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY (or SECRET_KEY_FILE) must be set when DEBUG is off")
    SECRET_KEY = "insecure-development-key-do-not-use-in-production"

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])
SITE_URL = (env_str("SITE_URL", "http://127.0.0.1:8000") or "").rstrip("/")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "common",
    "registry",
    "verification",
    "attestations",
    "webhooks",
    "canaries",
]

MIDDLEWARE = [
    # First, so it sees every answer (also those of the security middleware) on API paths.
    "common.middleware.ProblemErrorsMiddleware",
    "common.middleware.UnstorableRequestTextMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "common.middleware.BodySizeLimitMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
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
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Database -------------------------------------------------------------------------------------
# DATABASE_URL may come from a file (DATABASE_URL_FILE) like every secret: it carries the password.
DATABASES = {
    "default": environ.Env.db_url_config(env_str("DATABASE_URL") or f"sqlite:///{VAR_DIR / 'db.sqlite3'}")
}
_db = DATABASES["default"]
if _db["ENGINE"] == "django.db.backends.sqlite3":
    # A file-backed test database, so a Celery worker started by a test sees the same rows.
    _db["TEST"] = {"NAME": env_str("SQLITE_TEST_DB", str(VAR_DIR / "test-db.sqlite3"))}
    _db.setdefault("OPTIONS", {})
    # WAL lets readers and the single writer proceed together in the embedded set-up.
    _db["OPTIONS"].setdefault("init_command", "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;")
    _db["OPTIONS"].setdefault("transaction_mode", "IMMEDIATE")
else:
    _db["CONN_MAX_AGE"] = env_int("DB_CONN_MAX_AGE", 60, minimum=0)
    _db["CONN_HEALTH_CHECKS"] = True
if _db["ENGINE"] in ("django.db.backends.postgresql", "django.contrib.gis.db.backends.postgis"):
    # A server-side bound on every statement, so no request (or task) holds a connection and its locks
    # for longer than this; 0 turns it off. Sent as a connection option: no extra round trip per request.
    DB_STATEMENT_TIMEOUT_MS = env_int("DB_STATEMENT_TIMEOUT_MS", 30_000, minimum=0)
    _db.setdefault("OPTIONS", {})
    _db["OPTIONS"]["options"] = (
        _db["OPTIONS"].get("options", "") + f" -c statement_timeout={DB_STATEMENT_TIMEOUT_MS}"
    ).strip()
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Cache, Celery --------------------------------------------------------------------------------
REDIS_URL = env_str("REDIS_URL", "") or ""
# The in-memory broker names a host: even eager tasks open a (never used) connection, and kombu logs
# "No hostname was supplied" as a WARNING for a URL without one.
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", "") or REDIS_URL or "memory://localhost/"
CELERY_RESULT_BACKEND = None
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", CELERY_BROKER_URL.startswith("memory://"))
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_DEFAULT_QUEUE = env_str("CELERY_TASK_DEFAULT_QUEUE", "celery") or "celery"
# With acks_late, Redis hands an unacknowledged task to another worker after this long (default
# there: an hour). It must exceed the longest task, the drain's budget plus one batch, and any
# countdown; a killed worker's tasks come back after it.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT_SECONDS", 600, minimum=30),
}
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
if CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
    # kombu's Redis transport with a fix for the worker dying when Redis restarts (see the module).
    CELERY_BROKER_TRANSPORT = "config.celery_redis:Transport"
CELERY_BEAT_SCHEDULE = {
    "collect-provider-stats": {
        "task": "registry.tasks.collect_all_provider_stats",
        "schedule": env_float("PULL_INTERVAL_SECONDS", 900.0, minimum=10.0),
    },
    "refit-tool-calibration": {
        "task": "verification.tasks.refit_tool_calibration",
        "schedule": env_float("CALIBRATION_INTERVAL_SECONDS", 6 * 3600.0, minimum=60.0),
    },
    "drain-recomputes": {
        # A safety net: drains are normally queued by the writes that need them.
        "task": "registry.tasks.drain_recomputes",
        "schedule": env_float("DRAIN_INTERVAL_SECONDS", 60.0, minimum=1.0),
    },
    "refresh-provider-audit": {
        # The admin's and the provider pages' audit numbers and collusion signals (stored, not live).
        "task": "registry.tasks.refresh_provider_audit",
        "schedule": env_float("AUDIT_REFRESH_INTERVAL_SECONDS", 900.0, minimum=10.0),
    },
    "drain-rollups": {
        # The same safety net for outcome roll-ups.
        "task": "registry.tasks.drain_rollups",
        "schedule": env_float("DRAIN_INTERVAL_SECONDS", 60.0, minimum=1.0),
    },
    "webhook-deliveries-sweep": {
        # Pending webhook deliveries whose task was lost, and retries longer than a broker countdown.
        "task": "webhooks.tasks.webhook_deliveries_sweep",
        "schedule": env_float("DRAIN_INTERVAL_SECONDS", 60.0, minimum=1.0),
    },
    "canary-rounds": {
        # Labelled canary runs to providers' check endpoints (docs/canaries.md), spread over the interval.
        "task": "canaries.tasks.canary_rounds_schedule",
        "schedule": env_float("CANARY_INTERVAL_SECONDS", 6 * 3600.0, minimum=60.0),
    },
    "recompute-aging-scores": {
        "task": "registry.tasks.recompute_aging_scores",
        "schedule": env_float("AGING_SCAN_INTERVAL_SECONDS", 3600.0, minimum=10.0),
    },
}

if REDIS_URL:
    # One redis-py client per pool, not per operation (common/cache.py).
    CACHES = {"default": {"BACKEND": "common.cache.SharedClientRedisCache", "LOCATION": REDIS_URL}}
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# --- Auth, i18n, static ---------------------------------------------------------------------------
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]
LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True
STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"

# --- API ------------------------------------------------------------------------------------------
# Bodies larger than this are refused with 413 before they are parsed.
MAX_BODY_BYTES = env_int("MAX_BODY_BYTES", 8 * 1024 * 1024, minimum=1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = MAX_BODY_BYTES
# JSON (bodies, pulled stats, tool results in runs) nested deeper than this is refused before decoding.
JSON_MAX_DEPTH = env_int("JSON_MAX_DEPTH", 64, minimum=1)
# Arrays and objects in one request body: decoding cost grows with them (4 M lists took 2.4 s of CPU),
# and the largest legitimate body (a full batch of summaries with stake levels) holds about 6,000.
JSON_MAX_CONTAINERS = env_int("JSON_MAX_CONTAINERS", 100_000, minimum=1)
# How far in the future a provider's timestamp (updatedAt, checkedAt) may lie: clock skew, no more.
MAX_CLOCK_SKEW_SECONDS = env_int("MAX_CLOCK_SKEW_SECONDS", 300, minimum=0)
SUMMARY_BATCH_MAX = env_int("SUMMARY_BATCH_MAX", 1000, minimum=1)
OUTCOME_BATCH_MAX = env_int("OUTCOME_BATCH_MAX", 5000, minimum=1)
TOOL_CALL_BATCH_MAX = env_int("TOOL_CALL_BATCH_MAX", 500, minimum=1)
AUTO_REGISTER_AGENTS = env_bool("AUTO_REGISTER_AGENTS", False)
# Verifications (runs, tool calls, proxied answers, scans, runtime observations) one operator may ask
# for per UTC day; 0 turns the quota off.
OPERATOR_DAILY_QUOTA = env_int("OPERATOR_DAILY_QUOTA", 100_000, minimum=0)
# Outcomes are rolled up into a summary over this many trailing days.
OUTCOME_WINDOW_DAYS = env_int("OUTCOME_WINDOW_DAYS", 7, minimum=1)
# The bound of an agent search (`q=`, registry/search.py): its planning query counts at most this many
# (+1) index entries per word, and a search read as a candidate set (an ordering other than -score,
# a prefix several words begin with, several common words) ranks at most this many. Both costs grow
# with it: at 1 M agents 1,000 kept those searches under 500 req/s, 200 brought them to the target
# (docs/benchmarks.md "1 M agents"). A -score search of one word walks every match whatever it is.
AGENT_SEARCH_MAX_MATCHES = env_int("AGENT_SEARCH_MAX_MATCHES", 200, minimum=1)
# Provider audit snapshots (the admin's block-rate-over-time chart) older than this many days are
# deleted by each audit refresh; 0 keeps them all.
AUDIT_SNAPSHOT_RETENTION_DAYS = env_int("AUDIT_SNAPSHOT_RETENTION_DAYS", 90, minimum=0)
# Seconds a burst of summaries for one agent is allowed to gather before one recompute runs.
SCORE_RECOMPUTE_DELAY_SECONDS = env_float("SCORE_RECOMPUTE_DELAY_SECONDS", 2.0, minimum=0.0)
# A drain's claim on one batch of pending agents (or roll-ups) lapses after this long unless the
# drain renews it (every third of it, while it works on the batch), so a killed worker's agents come
# back this long after its last renewal. Correctness never depends on it (claims are fenced by token).
SCORE_RECOMPUTE_LEASE_SECONDS = env_float("SCORE_RECOMPUTE_LEASE_SECONDS", 5.0, minimum=0.1)
# One drain task stops claiming after this long and queues a successor.
SCORE_RECOMPUTE_DRAIN_BUDGET_SECONDS = env_float("SCORE_RECOMPUTE_DRAIN_BUDGET_SECONDS", 30.0, minimum=1.0)
# The whole answer of one stats request (resolution to last byte), not each read.
PULL_TIMEOUT_SECONDS = env_float("PULL_TIMEOUT_SECONDS", 10.0, minimum=0.1)
# A stats answer longer than this is given up as it streams (an HCS-25 signal is a few hundred bytes).
PULL_MAX_BYTES = env_int("PULL_MAX_BYTES", 256 * 1024, minimum=1024)
# URLs from outside (stats endpoints, agent URIs): plain http and private/loopback/link-local addresses
# are refused unless these are on (local development and tests). Metadata addresses are always refused.
OUTBOUND_ALLOW_HTTP = env_bool("OUTBOUND_ALLOW_HTTP", False)
OUTBOUND_ALLOW_PRIVATE = env_bool("OUTBOUND_ALLOW_PRIVATE", False)
# Signed webhooks (docs/webhooks.md).
WEBHOOK_TIMEOUT_SECONDS = env_float("WEBHOOK_TIMEOUT_SECONDS", 10.0, minimum=0.1)
WEBHOOK_MAX_ATTEMPTS = env_int("WEBHOOK_MAX_ATTEMPTS", 8, minimum=1)
WEBHOOK_BACKOFF_BASE_SECONDS = env_float("WEBHOOK_BACKOFF_BASE_SECONDS", 5.0, minimum=0.0)
WEBHOOK_BACKOFF_MAX_SECONDS = env_float("WEBHOOK_BACKOFF_MAX_SECONDS", 3600.0, minimum=0.0)
WEBHOOK_DISABLE_AFTER = env_int("WEBHOOK_DISABLE_AFTER", 5, minimum=1)
WEBHOOK_SECRET_OVERLAP_SECONDS = env_int("WEBHOOK_SECRET_OVERLAP_SECONDS", 86_400, minimum=0)
WEBHOOK_MAX_SUBSCRIPTIONS = env_int("WEBHOOK_MAX_SUBSCRIPTIONS", 20, minimum=1)
# Tests and local development only: hosts (exact, e.g. 127.0.0.1) a webhook may reach over plain http
# at a private address. Everything else goes through the outbound guard like any URL from outside.
WEBHOOK_TEST_ALLOWED_HOSTS = env_list("WEBHOOK_TEST_ALLOWED_HOSTS", [])
# Canary cases to providers' check endpoints (docs/canaries.md). 0 cases per round sends none.
CANARY_INTERVAL_SECONDS = env_float("CANARY_INTERVAL_SECONDS", 6 * 3600.0, minimum=60.0)
CANARY_CASES_PER_ROUND = env_int("CANARY_CASES_PER_ROUND", 2, minimum=0)
CANARY_TIMEOUT_SECONDS = env_float("CANARY_TIMEOUT_SECONDS", 10.0, minimum=0.1)
CANARY_WINDOW_DAYS = env_int("CANARY_WINDOW_DAYS", 30, minimum=1)
# The in-repo engine is measured too, in process (it has no check endpoint of its own).
CANARY_ENGINE = env_bool("CANARY_ENGINE", True)
# Signed trust (the key itself is read from the environment by attestations.services.keys, never here).
ATTESTATION_TTL_SECONDS = env_int("ATTESTATION_TTL_SECONDS", 86_400, minimum=60)
ATTESTATION_CHAIN_ID = env_int("ATTESTATION_CHAIN_ID", 8453, minimum=1)
# A signed push may not be valid for longer than this (bounds how long a leaked signature is useful).
SIGNATURE_MAX_DEADLINE_SECONDS = env_int("SIGNATURE_MAX_DEADLINE_SECONDS", 3600, minimum=60)
# Redis namespace of the tool verifier's shared state (baselines, history, feedback).
TOOL_ENGINE_NAMESPACE = env_str("TOOL_ENGINE_NAMESPACE", "trust-registry:tools") or "trust-registry:tools"
# Labels needed (with both outcomes present) before the engine's confidence is recalibrated.
TOOL_CALIBRATION_MIN_LABELS = env_int("TOOL_CALIBRATION_MIN_LABELS", 50, minimum=2)
# Agent-run verification (seed 004 gate thresholds) and the HaluGate-style proxy.
RUN_EMIT_THRESHOLD = env_float("RUN_EMIT_THRESHOLD", 0.85, minimum=0.0, maximum=1.0)
RUN_REVISE_THRESHOLD = env_float("RUN_REVISE_THRESHOLD", 0.6, minimum=0.0, maximum=1.0)
RUN_BLOCK_THRESHOLD = env_float("RUN_BLOCK_THRESHOLD", 0.4, minimum=0.0, maximum=1.0)
RUN_PROBE_ENDPOINT = env_str("RUN_PROBE_ENDPOINT", "") or ""
RUN_PROBE_MODEL = env_str("RUN_PROBE_MODEL", "gpt-4o-mini") or "gpt-4o-mini"
RUN_PROBE_API_KEY = env_str("RUN_PROBE_API_KEY", "") or ""
RUN_MODEL_PATH = env_str("RUN_MODEL_PATH", "") or ""
RUN_PROXY_UPSTREAM_URL = env_str("RUN_PROXY_UPSTREAM_URL", "") or ""
RUN_PROXY_UPSTREAM_API_KEY = env_str("RUN_PROXY_UPSTREAM_API_KEY", "") or ""
RUN_PROXY_DEFAULT_ACTION = env_choice(
    "RUN_PROXY_DEFAULT_ACTION", "header", ["header", "body", "block", "none", "revise"]
)
# `revise`: how many times the proxy re-asks the upstream model with the gate's revise message.
RUN_PROXY_MAX_REVISIONS = env_int("RUN_PROXY_MAX_REVISIONS", 2, minimum=0)
RUN_PROXY_TIMEOUT_SECONDS = env_float("RUN_PROXY_TIMEOUT_SECONDS", 60.0, minimum=1.0)
# A streamed proxy answer (stream: true) is read up to this many bytes of upstream events; the answer's
# text is held for verification within it (docs/run-verification.md, "Streaming").
RUN_PROXY_STREAM_MAX_BYTES = env_int("RUN_PROXY_STREAM_MAX_BYTES", 1024 * 1024, minimum=1024)
# Shadow mode for the proxy and the verify endpoints: verify and count, enforce nothing.
ENGINE_SHADOW_MODE = env_bool("ENGINE_SHADOW_MODE", False)
# Bounded cost of one run verification (verify/run and the proxy), see docs/security.md: CPU seconds the
# engine may spend (422 budget-exceeded after that), and size caps checked before the work (413).
RUN_BUDGET_SECONDS = env_float("RUN_BUDGET_SECONDS", 2.0, minimum=0.01)
# Which gate sets a run report's action: "score" (RUN_*_THRESHOLD on the overall score) or "calibrated" (the
# thresholds fitted from data on the answer's hallucination probability, docs/run-verification.md).
RUN_GATE = env_choice("RUN_GATE", "score", ["score", "calibrated"])
RUN_MAX_ANSWER_CHARS = env_int("RUN_MAX_ANSWER_CHARS", 50_000, minimum=1)
RUN_MAX_CONTEXT_CHARS = env_int("RUN_MAX_CONTEXT_CHARS", 2_000_000, minimum=1)
RUN_MAX_CLAIMS = env_int("RUN_MAX_CLAIMS", 2_000, minimum=1)
RUN_MAX_COMPARISONS = env_int("RUN_MAX_COMPARISONS", 20_000_000, minimum=1)
PULL_MAX_AGENTS_PER_PROVIDER = env_int("PULL_MAX_AGENTS_PER_PROVIDER", 10_000, minimum=1)

_renderers = ["rest_framework.renderers.JSONRenderer"]
if DEBUG:
    _renderers.append("rest_framework.renderers.BrowsableAPIRenderer")

REST_FRAMEWORK: dict[str, object] = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["registry.api.authentication.ProviderKeyAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_RENDERER_CLASSES": _renderers,
    "DEFAULT_PARSER_CLASSES": ["common.parsers.LenientJSONParser"],
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "common.pagination.StrictLimitOffsetPagination",
    "PAGE_SIZE": 50,
    "EXCEPTION_HANDLER": "common.errors.problem_exception_handler",
    "UNAUTHENTICATED_USER": None,
}

# --- Security ---
# Production protections are on by default whenever DEBUG is off; each can be overridden from the
# environment. docs/security.md states the threats and bounds these settings answer.
_PRODUCTION = not DEBUG

# How many reverse proxies in front of the service append to X-Forwarded-For. 0: the client address is
# REMOTE_ADDR and X-Forwarded-For is ignored (a client could write anything there). With N, the N-th
# entry from the right is the client (common.throttling.client_address, used by every throttle and by
# the admin lockout).
TRUSTED_PROXY_COUNT = env_int("TRUSTED_PROXY_COUNT", 0, minimum=0)

# Rate limits (validated here: a bad value stops start-up instead of turning every request into a 500).
# Anonymous requests count per client address; requests with a provider or operator key count per key.
_throttle_rates: dict[str, str | None] = {
    "reads": env_rate("READ_RATE_LIMIT", "1200/minute"),
    "reads-authenticated": env_rate("READ_RATE_LIMIT_AUTHENTICATED", "6000/minute"),
    "writes": env_rate("WRITE_RATE_LIMIT", "6000/minute"),
}
if env_bool("READ_RATE_LIMIT_DISABLED", False):
    _throttle_rates["reads"] = None
REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"] = _throttle_rates
REST_FRAMEWORK["DEFAULT_THROTTLE_CLASSES"] = ["common.throttling.RequestThrottle"]
REST_FRAMEWORK["NUM_PROXIES"] = TRUSTED_PROXY_COUNT

# HTTPS. /healthz stays reachable over plain HTTP for container and load-balancer health checks.
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", _PRODUCTION)
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31_536_000 if _PRODUCTION else 0, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", _PRODUCTION)
# Preloading commits the whole domain to HTTPS in browsers for months and is the domain owner's call,
# so it is opt-in; check --deploy's reminder about it (W021) is silenced while it is off.
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
SILENCED_SYSTEM_CHECKS = [] if SECURE_HSTS_PRELOAD else ["security.W021"]
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", _PRODUCTION)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", _PRODUCTION)
SECURE_CONTENT_TYPE_NOSNIFF = env_bool("SECURE_CONTENT_TYPE_NOSNIFF", True)
SECURE_REFERRER_POLICY = env_str("SECURE_REFERRER_POLICY", "same-origin") or None
X_FRAME_OPTIONS = "DENY"
# Which request header says the original request was https. Only a proxy can be trusted to set it, so
# it is off without trusted proxies unless named explicitly (e.g. X-Forwarded-Proto).
_proxy_ssl_header = env_str("SECURE_PROXY_SSL_HEADER", "X-Forwarded-Proto" if TRUSTED_PROXY_COUNT else "")
if _proxy_ssl_header and _proxy_ssl_header.strip().lower() not in {"off", "none"}:
    SECURE_PROXY_SSL_HEADER = ("HTTP_" + _proxy_ssl_header.strip().upper().replace("-", "_"), "https")

# Content-Security-Policy (django-csp), on documents (JSON API answers skip it: common.security).
# Everything is served from this origin: the agent pages (their one inline <style> carries the
# per-request nonce), the admin, and Swagger UI, whose assets come from drf-spectacular-sidecar
# instead of a CDN and whose set-up script is a file (the split view). Its icons are data: images.
if env_bool("CSP_ENABLED", True):
    from csp.constants import NONCE, NONE, SELF

    _csp: dict[str, Any] = {
        "DIRECTIVES": {
            "default-src": [SELF],
            "script-src": [SELF],
            "style-src": [SELF, NONCE],
            "img-src": [SELF, "data:"],
            "font-src": [SELF],
            "connect-src": [SELF],
            "object-src": [NONE],
            "base-uri": [SELF],
            "form-action": [SELF],
            "frame-ancestors": [NONE],
        }
    }
    _csp_report_uri = env_str("CSP_REPORT_URI", "") or ""
    if _csp_report_uri:
        _csp["DIRECTIVES"]["report-uri"] = [_csp_report_uri]
    if env_bool("CSP_REPORT_ONLY", False):
        CONTENT_SECURITY_POLICY_REPORT_ONLY = _csp
    else:
        CONTENT_SECURITY_POLICY = _csp
    MIDDLEWARE.insert(
        MIDDLEWARE.index("django.middleware.security.SecurityMiddleware") + 1,
        "common.security.DocumentCSPMiddleware",
    )

# Admin login lockout (django-axes): after AXES_FAILURE_LIMIT wrong passwords for one username from one
# address, that pair is refused (even with the right password) until the cool-off has passed.
INSTALLED_APPS.append("axes")
MIDDLEWARE.append("axes.middleware.AxesMiddleware")
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "django.contrib.auth.backends.ModelBackend"]
AXES_FAILURE_LIMIT = env_int("AXES_FAILURE_LIMIT", 5, minimum=1)
AXES_COOLOFF_TIME = timedelta(minutes=env_float("AXES_COOLOFF_MINUTES", 15.0, minimum=0.1))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_CLIENT_IP_CALLABLE = "common.throttling.client_address"
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "common.throttling.admin_lockout_response"
# --- end Security ---

SPECTACULAR_SETTINGS = {
    "TITLE": "Trust registry for AI agents",
    "DESCRIPTION": (
        "Verification providers push summaries of how agents' outputs fared; the registry computes "
        "HCS-25 trust scores (output-verification and erc8004-feedback adapters) that marketplaces read. "
        "Errors are RFC 9457 problem details."
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    # One name for the agent registry's choices wherever a serializer or filter uses them.
    "ENUM_NAME_OVERRIDES": {"AgentRegistryEnum": "registry.models.Agent.Registry"},
    "SCHEMA_PATH_PREFIX": r"/(api/)?v1",
    # Served from this origin (collectstatic), not from a CDN: the CSP allows only 'self'.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "common.schema.problem_details_hook",
    ],
}

# A misspelt level would otherwise surface as a logging set-up traceback that does not name the variable.
_LOG_LEVELS = ["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    # Control characters in messages (a request path with %0A) are escaped: no forged log lines.
    "formatters": {
        "plain": {
            "()": "common.logformat.ControlEscapingFormatter",
            "fmt": "%(asctime)s %(levelname)s %(name)s %(message)s",
        }
    },
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_choice("LOG_LEVEL", "INFO", _LOG_LEVELS)},
    "loggers": {
        "django.db.backends": {"level": "WARNING"},
        "celery.app.trace": {"level": env_choice("CELERY_TRACE_LOG_LEVEL", "WARNING", _LOG_LEVELS)},
    },
}

# --- ERC-8004 chain ---
# Reading and writing the ERC-8004 registries (attestations.services.chain builds the ChainSettings from
# these). Off by default: the service runs fully without a node. The signing key doubles as the sending
# and validator key and is read from the environment by attestations.services.keys, never here.


def _chain_optional_int(name: str, minimum: int) -> int | None:
    # Unset means "the network preset decides" (e.g. 12 confirmations on Base, 0 on a local node).
    return env_int(name, minimum, minimum=minimum) if (os.environ.get(name) or "").strip() else None


CHAIN_ENABLED = env_bool("CHAIN_ENABLED", False)
CHAIN_NETWORK = env_str("CHAIN_NETWORK", "base") or "base"
CHAIN_RPC_URL = env_str("CHAIN_RPC_URL", "") or ""
CHAIN_ID = _chain_optional_int("CHAIN_ID", 1)
CHAIN_IDENTITY_REGISTRY = env_str("CHAIN_IDENTITY_REGISTRY", "") or ""
CHAIN_REPUTATION_REGISTRY = env_str("CHAIN_REPUTATION_REGISTRY", "") or ""
CHAIN_VALIDATION_REGISTRY = env_str("CHAIN_VALIDATION_REGISTRY", "") or ""
CHAIN_START_BLOCK = _chain_optional_int("CHAIN_START_BLOCK", 0)
CHAIN_CONFIRMATIONS = _chain_optional_int("CHAIN_CONFIRMATIONS", 0)
CHAIN_MAX_BLOCK_RANGE = _chain_optional_int("CHAIN_MAX_BLOCK_RANGE", 1)
# More ERC-8004 deployments to index and publish on, beside the one above: a JSON list of objects with the
# keys network, chainId, rpcUrl, identityRegistry, reputationRegistry, validationRegistry, startBlock,
# confirmations, maxBlockRange (docs/chain.md "Many chains"). CHAIN_DEPLOYMENTS_FILE reads it from a file.
CHAIN_DEPLOYMENTS = env_str("CHAIN_DEPLOYMENTS", "") or ""
# Agents' ipfs:// registration files are fetched through this gateway (an https URL ending in /).
CHAIN_IPFS_GATEWAY = env_str("CHAIN_IPFS_GATEWAY", "https://ipfs.io/ipfs/") or "https://ipfs.io/ipfs/"
# Published feedback: tag1 names the standard, tag2 the HCS-25 adapter (or "composite" for the trust score).
CHAIN_FEEDBACK_TAG1 = env_str("CHAIN_FEEDBACK_TAG1", "hcs-25") or "hcs-25"
CHAIN_FEEDBACK_TAG2 = env_str("CHAIN_FEEDBACK_TAG2", "composite") or "composite"
CHAIN_VALIDATION_TAG = env_str("CHAIN_VALIDATION_TAG", "hcs-25") or "hcs-25"
# Empty: the service key's address.
VALIDATOR_ADDRESS = env_str("VALIDATOR_ADDRESS", "") or ""
CHAIN_RECEIPT_TIMEOUT_SECONDS = env_float("CHAIN_RECEIPT_TIMEOUT_SECONDS", 120.0, minimum=1.0)
# A claim older than this is presumed to belong to a dead worker and may be taken over.
CHAIN_CLAIM_LEASE_SECONDS = env_int("CHAIN_CLAIM_LEASE_SECONDS", 300, minimum=10)
CHAIN_MAX_ATTEMPTS = env_int("CHAIN_MAX_ATTEMPTS", 8, minimum=1)
# Publish on-chain agents' new scores without being asked (each costs gas and stays on chain forever).
CHAIN_AUTO_PUBLISH = env_bool("CHAIN_AUTO_PUBLISH", False)
CHAIN_AUTO_PUBLISH_MIN_INTERVAL_SECONDS = env_int(
    "CHAIN_AUTO_PUBLISH_MIN_INTERVAL_SECONDS", 86_400, minimum=0
)
CHAIN_AUTO_PUBLISH_MIN_CHANGE = env_float("CHAIN_AUTO_PUBLISH_MIN_CHANGE", 1.0, minimum=0.0)
# Agents' https registration files are re-read when this old (the URI did not change, the file may
# have); each beat run queues at most REGISTRATION_REFRESH_BATCH of them, oldest first.
REGISTRATION_REFRESH_SECONDS = env_int("REGISTRATION_REFRESH_SECONDS", 86_400, minimum=60)
REGISTRATION_REFRESH_BATCH = env_int("REGISTRATION_REFRESH_BATCH", 200, minimum=1)
if CHAIN_ENABLED or CHAIN_DEPLOYMENTS:
    CELERY_BEAT_SCHEDULE.update(
        {
            "chain-index": {
                "task": "attestations.tasks.chain_index",
                "schedule": env_float("CHAIN_INDEX_INTERVAL_SECONDS", 30.0, minimum=1.0),
            },
            "chain-validation-responder": {
                "task": "attestations.tasks.validation_answers_sweep",
                "schedule": env_float("CHAIN_RESPONDER_INTERVAL_SECONDS", 60.0, minimum=1.0),
            },
            "chain-publications": {
                "task": "attestations.tasks.score_publications_sweep",
                "schedule": env_float("CHAIN_PUBLISH_SWEEP_INTERVAL_SECONDS", 300.0, minimum=1.0),
            },
            "chain-registration-refresh": {
                "task": "attestations.tasks.agent_registrations_refresh",
                "schedule": env_float("REGISTRATION_REFRESH_INTERVAL_SECONDS", 600.0, minimum=10.0),
            },
            "chain-wallet-check": {
                "task": "attestations.tasks.provider_wallets_check",
                "schedule": env_float("CHAIN_WALLET_CHECK_INTERVAL_SECONDS", 3600.0, minimum=10.0),
            },
        }
    )
# --- end ERC-8004 chain ---
