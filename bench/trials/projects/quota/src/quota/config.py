import os

WINDOW_SECONDS = 60

PLANS = {
    "free": {
        "per_key_per_minute": 60,
        "per_account_per_minute": 120,
    },
    "pro": {
        "per_key_per_minute": 300,
        "per_account_per_minute": 1000,
    },
    "enterprise": {
        "per_key_per_minute": 600,
        "per_account_per_minute": 1500,
    },
}

DEFAULT_PLAN = "free"

DATABASE_URL = os.environ.get(
    "QUOTA_DATABASE_URL", "postgresql://quota:quota@localhost:5432/quota"
)
DB_POOL_MIN = int(os.environ.get("QUOTA_DB_POOL_MIN", "2"))
DB_POOL_MAX = int(os.environ.get("QUOTA_DB_POOL_MAX", "8"))
DB_STATEMENT_TIMEOUT_MS = int(os.environ.get("QUOTA_DB_STATEMENT_TIMEOUT_MS", "2000"))

MAX_PAGE_SIZE = 100
DEFAULT_PAGE_SIZE = 50

OPEN_PATHS = {"/healthz", "/readyz"}

LOG_LEVEL = os.environ.get("QUOTA_LOG_LEVEL", "INFO")


def plan_limits(plan_name):
    return PLANS.get(plan_name, PLANS[DEFAULT_PLAN])
