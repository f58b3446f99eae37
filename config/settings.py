"""Residual's settings: one module, read from the environment.

The defaults are the embedded shape (SQLite file, tasks in-process, local memory cache);
production sets DATABASE_URL, REDIS_URL, CELERY_BROKER_URL, SECRET_KEY, ALLOWED_HOSTS and DEBUG=0.
"""

import os
from datetime import timedelta
from pathlib import Path
from typing import Any

import dj_database_url
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    if value.lower() in {"1", "true", "yes", "on"}:
        return True
    if value.lower() in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (1/0, true/false), not {value!r}")


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if not value:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    if not value:
        return default
    try:
        return int(value)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name} must be a whole number, not {value!r}") from exc


DEBUG = env_bool("DEBUG", False)

# The fallback is for development and tests; `check --deploy` flags it (W009) if it ever ships.
SECRET_KEY = os.environ.get("SECRET_KEY") or "django-insecure-residual-development-key-not-secret"

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

# Browser apps served from other origins call the API with a token (no cookies cross-site);
# none is allowed unless listed.
CORS_ALLOWED_ORIGINS = env_list("CORS_ALLOWED_ORIGINS", [])
CORS_URLS_REGEX = r"^/api/.*$"
CORS_ALLOW_CREDENTIALS = False
CORS_ALLOW_HEADERS = (
    "accept",
    "authorization",
    "content-type",
    "idempotency-key",
    "if-modified-since",
    "if-none-match",
)
CORS_EXPOSE_HEADERS = (
    "etag",
    "last-modified",
    "retry-after",
    "ratelimit",
    "ratelimit-policy",
    "idempotent-replayed",
    "content-disposition",
)
CORS_PREFLIGHT_MAX_AGE = 3600

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "corsheaders",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.forms",  # the form renderer finds the widget templates through it
    "rest_framework",
    "knox",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_celery_beat",
    "axes",
    "django_htmx",
    "template_partials",
    "accounts",
    "course",
    "quizzes",
    "reviews",
    "classrooms",
    "web",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "corsheaders.middleware.CorsMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "web.middleware.PageErrors",
    "config.throttles.RateLimitHeaders",
    # Last, so it sees the sign-in that it refused and answers for it.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"
# Every form on the site renders its fields the one accessible way (web/templates/web/forms/).
FORM_RENDERER = "web.forms.SiteFormRenderer"
LOGIN_URL = "accounts:login"
LOGIN_REDIRECT_URL = "web:home"
LOGOUT_REDIRECT_URL = "web:home"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "config" / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            # `{% url %}` with its reversals kept (config/reversing.py).
            "builtins": ["config.reversing"],
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "web.context_processors.site",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL") or f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=env_int("DB_CONN_MAX_AGE", 60),
        conn_health_checks=True,
    )
}
# The hot path's statements (config.rows.cursor) are kept prepared on each connection, once run
# five times there. Turn it off behind a connection pooler that hands a session's statements to
# other connections (PgBouncer in transaction mode before 1.21, or without
# max_prepared_statements).
DB_PREPARED_STATEMENTS = env_bool("DB_PREPARED_STATEMENTS", True)
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # A database that does not answer is a quick 503, not a request hanging on a dead host.
    DATABASES["default"].setdefault("OPTIONS", {})
    DATABASES["default"]["OPTIONS"]["connect_timeout"] = env_int("DB_CONNECT_TIMEOUT", 5)
    if DB_PREPARED_STATEMENTS:
        # Only cursors that bind on the server prepare: config.rows.cursor makes those.
        DATABASES["default"]["OPTIONS"]["prepare_threshold"] = 5
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Concurrent readers while one request writes, and no "database is locked" under load.
    DATABASES["default"]["OPTIONS"] = {
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
    }
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    # Tests use a file too: an in-memory database shared between the live server's threads
    # fails concurrent writers at once ("table is locked") instead of letting them wait.
    DATABASES["default"]["TEST"] = {"NAME": str(BASE_DIR / ".test-db.sqlite3")}

REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "residual",
            "TIMEOUT": 300,
            # The request path never waits long on Redis: a slow or absent cache is a miss.
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

AUTH_USER_MODEL = "accounts.User"
# The lockout backend comes first: a locked-out username is refused before its password is
# checked, whichever sign-in (API or admin) it comes through.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
PASSWORD_HASHERS = [
    "django.contrib.auth.hashers.Argon2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
    # Not a check: a saved new password ends every session and token of its user.
    {"NAME": "accounts.passwords.SignOutEverywhere"},
]

LANGUAGE_CODE = "en"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
# Files the service writes (prepared exports); never served as static files.
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT") or BASE_DIR / "media")
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT") or BASE_DIR / "staticfiles")
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # Compressed at collectstatic, served by whitenoise; no manifest, so a process that never
    # ran collectstatic (tests, the embedded default) still serves the admin and the API docs.
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
STATICFILES_DIRS = [BASE_DIR / "config" / "static"]
# The API docs' assets are found in the installed apps without a collectstatic step.
WHITENOISE_USE_FINDERS = True
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

CONTENT_DIR = Path(os.environ.get("CONTENT_DIR", BASE_DIR / "content"))

# Security: production (DEBUG off) passes `manage.py check --deploy` with no warnings.
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", not DEBUG)
SECURE_REDIRECT_EXEMPT = [r"^api/v1/health/$"]  # container health checks speak plain HTTP
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", not DEBUG)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", not DEBUG)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0 if DEBUG else 31_536_000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# Every page (admin, API docs, the web app) runs scripts and styles from this site only: no
# inline script, no other origin. JSON responses carry it too, harmlessly.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],  # Swagger UI's icons are data: URLs in its stylesheet
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [NONE],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"

EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Residual <noreply@residual.local>")

# Proxies in front that append the client's address to X-Forwarded-For; 0 means clients
# connect directly and the socket's address is the client's (config/clients.py).
NUM_PROXIES = env_int("NUM_PROXIES", 0)
if NUM_PROXIES < 0:
    raise ImproperlyConfigured(f"NUM_PROXIES must be 0 or more, not {NUM_PROXIES}")

# Failed sign-ins per username (accounts/lockout.py, django-axes), on top of the per-address
# login throttle: this many failures within the cool-off lock the username for the cool-off.
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 10)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("LOGIN_LOCKOUT_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = ["username"]
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_USERNAME_CALLABLE = "accounts.lockout.username_of"
AXES_CLIENT_IP_CALLABLE = "config.clients.client_address"
AXES_LOCKOUT_CALLABLE = "accounts.lockout.locked_out_response"
AXES_DISABLE_ACCESS_LOG = True  # no history of successful sign-ins is kept
AXES_VERBOSE = False
# axes.W006 asks for per-address lockouts too; the login throttle limits each address, and
# locking addresses out would lock out a whole school behind one.
SILENCED_SYSTEM_CHECKS = ["axes.W006"]

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.auth.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": [
        "rest_framework.renderers.JSONRenderer",
    ],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "config.problems.ProblemAwareNegotiation",
    "DEFAULT_PARSER_CLASSES": ["config.parsers.JSONParser"],
    "DEFAULT_PAGINATION_CLASS": "config.pagination.PageNumberPagination",
    "PAGE_SIZE": 20,
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_SCHEMA_CLASS": "config.schema.AutoSchema",
    "EXCEPTION_HANDLER": "config.problems.exception_handler",
    "DEFAULT_THROTTLE_RATES": {
        "login": os.environ.get("THROTTLE_LOGIN", "30/min"),
        "register": os.environ.get("THROTTLE_REGISTER", "20/hour"),
        "reports": os.environ.get("THROTTLE_REPORTS", "30/hour"),
        "answers": os.environ.get("THROTTLE_ANSWERS", "120/min"),
        # Each run of a learner's code costs a sandbox's CPU seconds on the code workers.
        "code": os.environ.get("THROTTLE_CODE", "30/hour"),
        "join": os.environ.get("THROTTLE_JOIN", "20/hour"),
        "licences": os.environ.get("THROTTLE_LICENCES", "10/hour"),
        "billing": os.environ.get("THROTTLE_BILLING", "20/hour"),
        # A lab's page asks again each time a slider stops moving.
        "labs-anonymous": os.environ.get("THROTTLE_LABS_ANONYMOUS", "120/min"),
        "labs": os.environ.get("THROTTLE_LABS", "300/min"),
    },
    # Throttles key on config.clients.client_address, which reads NUM_PROXIES above.
    "NUM_PROXIES": NUM_PROXIES,
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
}

REST_KNOX: dict[str, Any] = {
    "TOKEN_TTL": timedelta(days=env_int("TOKEN_TTL_DAYS", 30)),
    "AUTO_REFRESH": True,
    "TOKEN_LIMIT_PER_USER": 20,
    "AUTH_HEADER_PREFIX": "Token",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Residual API",
    "DESCRIPTION": "Learn how transformer models work, and keep it learned.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SERVE_PERMISSIONS": ["rest_framework.permissions.AllowAny"],
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # One enum per concept. A user's plan and a lesson's access are both free or pro, yet each
    # is its own enum (their labels differ), so a client never mistakes one for the other.
    # Ids in paths: 64-bit keys (config/converters.py).
    "PATH_CONVERTER_OVERRIDES": {
        "id": {"type": "integer", "format": "int64", "minimum": 0, "maximum": 2**63 - 1}
    },
    "ENUM_NAME_OVERRIDES": {
        "PlanEnum": "accounts.models.User.Plan",
        "LessonAccessEnum": "course.api.serializers.LESSON_ACCESS",
        "CardStateEnum": "reviews.models.Card.State",
        "DependencyStateEnum": "config.health.DEPENDENCY_STATES",
        "AnswerStatusEnum": "reviews.models.Answer.Status",
        "RatingEnum": "reviews.models.Answer.Rating",
        "NotificationKindEnum": "accounts.models.Notification.Kind",
        "QuestionKindEnum": "quizzes.models.Question.Kind",
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "config.problems.add_problem_responses",
        "config.schema.nullable_references",
    ],
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
}

# A 1,000-review offline sync fits comfortably; a larger body is a 413 before it is parsed.
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("API_MAX_BODY_BYTES", 2 * 1024 * 1024)
CSRF_FAILURE_VIEW = "config.problems.csrf_failure"

# Seconds a lab's result is kept for the same inputs.
LABS_CACHE_SECONDS = env_int("LABS_CACHE_SECONDS", 24 * 3600)

# How long a served variant may be answered, in seconds (offline reviews sync later).
VARIANT_TOKEN_MAX_AGE = env_int("VARIANT_TOKEN_MAX_AGE", 30 * 24 * 3600)
# How old an offline review may be when it is synced, in seconds: the time is the device's
# word, so it is bounded (and never before the account was made).
OFFLINE_REVIEW_MAX_AGE = env_int("OFFLINE_REVIEW_MAX_AGE", VARIANT_TOKEN_MAX_AGE)
# How long a repeat of an answer is recognised by its idempotency key, in seconds.
IDEMPOTENCY_TTL = env_int("IDEMPOTENCY_TTL", 7 * 24 * 3600)

# Notifications older than this many days are deleted by the nightly prune.
NOTIFICATION_TTL_DAYS = env_int("NOTIFICATION_TTL_DAYS", 180)

# A card answered wrong this many times after it was learned is suspended and flagged.
LEECH_LAPSES = env_int("LEECH_LAPSES", 8)

# Background work (config/celery.py). With no broker, tasks run in-process when sent, so the
# embedded default needs nothing but Python; production points this at Redis.
CELERY_TASK_ALWAYS_EAGER = not os.environ.get("CELERY_BROKER_URL")
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL") or "memory://localhost/"
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = "UTC"
CELERY_TASK_IGNORE_RESULT = True  # tasks report through the database, not a result backend
# One task at a time per worker process: a long sweep never holds short tasks back behind it.
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# Every task has limits; each task sets its own, these catch any that forgets.
CELERY_TASK_SOFT_TIME_LIMIT = env_int("CELERY_TASK_SOFT_TIME_LIMIT", 240)
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 300)
# A message taken by a worker that dies comes back after this long: longer than any task runs.
_VISIBILITY_TIMEOUT = env_int("CELERY_VISIBILITY_TIMEOUT", 3600)
CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, Any] = {
    "visibility_timeout": _VISIBILITY_TIMEOUT,
    # Workers look for such messages this often (seconds), on every look: left to the Redis
    # transport's defaults they would look every 100 s whatever the timeout.
    "unacked_restore_interval": max(1, min(10, _VISIBILITY_TIMEOUT // 4)),
    "unacked_restore_throttle": 1,
    # Sending a task never keeps a request waiting long on an absent broker.
    "socket_connect_timeout": 1,
    "socket_timeout": 5,
    "max_retries": 1,
    "interval_start": 0,
    "interval_step": 0.2,
}
if CELERY_BROKER_URL.startswith("filesystem://"):
    # A broker with no server, for one machine: messages are files in a shared folder.
    _folder = Path(os.environ.get("CELERY_BROKER_FOLDER", BASE_DIR / ".broker"))
    for _part in ("messages", "control"):
        (_folder / _part).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS |= {
        "data_folder_in": str(_folder / "messages"),
        "data_folder_out": str(_folder / "messages"),
        "control_folder": str(_folder / "control"),
        "store_processed": False,
    }
CELERY_BROKER_CONNECTION_TIMEOUT = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 1, "interval_start": 0, "interval_step": 0.2}
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
# The sandbox a learner's code runs in (config/sandbox.py): per submission, CPU seconds, the
# wall clock, each test case's seconds, and memory (address space, MB).
SANDBOX_CPU_SECONDS = env_int("SANDBOX_CPU_SECONDS", 10)
SANDBOX_WALL_SECONDS = env_int("SANDBOX_WALL_SECONDS", 20)
SANDBOX_CASE_SECONDS = env_int("SANDBOX_CASE_SECONDS", 5)
SANDBOX_MEMORY_MB = env_int("SANDBOX_MEMORY_MB", 1024)
# A learner's code runs on workers of its own (`celery worker -Q code`), so a queue of
# submissions never holds reminders or digests back, and those workers can be kept apart.
CELERY_TASK_ROUTES = {"reviews.code_submission_run": {"queue": "code"}}
CELERY_WORKER_HIJACK_ROOT_LOGGER = False

# Reminders: how many learners one sweep batch handles, and where the e-mails link to.
REMINDER_BATCH_SIZE = env_int("REMINDER_BATCH_SIZE", 1_000)
SITE_URL = os.environ.get("SITE_URL", "https://residual.local")
# Exports: a history past this many answers is prepared in the background (its file kept
# under MEDIA_ROOT, which the web and worker processes share, until its link expires).
EXPORT_IN_BACKGROUND_ANSWERS = env_int("EXPORT_IN_BACKGROUND_ANSWERS", 20_000)
EXPORT_LINK_SECONDS = env_int("EXPORT_LINK_SECONDS", 24 * 3600)
EXPORT_PREPARING_SECONDS = 15 * 60  # asking again meanwhile starts nothing new
# A learner's scheduler is refitted once this many reviews have come since the last fit.
REFIT_NEW_REVIEWS = env_int("REFIT_NEW_REVIEWS", 200)

# --- Billing (Stripe) ----------------------------------------------------------------------
# All three set: the plans page offers Pro by subscription, through Stripe Checkout and the
# customer portal. Any missing: billing is "not set up", and Pro comes from licence codes,
# classroom seats and staff only. The webhook's secret verifies every event Stripe sends.
STRIPE_SECRET_KEY = os.environ.get("STRIPE_SECRET_KEY", "")
STRIPE_WEBHOOK_SECRET = os.environ.get("STRIPE_WEBHOOK_SECRET", "")
STRIPE_PRICE_PRO = os.environ.get("STRIPE_PRICE_PRO", "")
# Seconds Stripe may take to reach us, as Stripe's own libraries allow by default: a signed
# event older than this is refused, so a captured one cannot be replayed later.
STRIPE_WEBHOOK_TOLERANCE = int(os.environ.get("STRIPE_WEBHOOK_TOLERANCE", "300"))
# Where the Stripe API is; empty for Stripe itself. A stand-in (stripe-mock, a test's server)
# for running without the internet.
STRIPE_API_BASE = os.environ.get("STRIPE_API_BASE", "")
