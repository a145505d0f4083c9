"""A payouts-like Django app whose POST /v1/transfers is wrapped by
drf-idempotency (the library under test: its IdempotencyMiddleware and
DatabaseBackend on SQLite), for retryspec's verify field suite
(../README.md).

    python3 verify/field/drf-idempotency/app.py --addr 127.0.0.1:8080 --db /tmp/idem.sqlite3 --effects /tmp/effects.jsonl

Settings beyond the library's defaults: REQUIRE_KEY (the contract's
key: required) and a 2-second LOCK_TTL_SECONDS, so that a killed
request's claim is taken over within seconds (the contract's
lock_timeout). SQLite runs in IMMEDIATE transaction mode, as Django
advises for concurrent writers.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # nothing written into the repository
sys.path[:0] = [os.path.join(HERE, "..", ".deps", "python"), os.path.join(HERE, "..")]

import fieldapp  # noqa: E402

OPTS = fieldapp.args(sys.argv[1:])

fieldapp.configure(
    __name__,
    MIDDLEWARE=["drf_idempotency.middleware.IdempotencyMiddleware"],
    INSTALLED_APPS=["drf_idempotency"],
    DATABASES={
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": OPTS["db"],
            "OPTIONS": {"transaction_mode": "IMMEDIATE", "timeout": 20},
        }
    },
    USE_TZ=True,
    # TTL_SECONDS: a 30 s replay window (the default is a day), a test
    # window short enough for verify/after-window to wait out.
    IDEMPOTENCY={"REQUIRE_KEY": True, "LOCK_TTL_SECONDS": 2, "TTL_SECONDS": 30},
)

from django.urls import path  # noqa: E402

transfers, healthz = fieldapp.views(OPTS["effects"])

urlpatterns = [path("v1/transfers", transfers), path("healthz", healthz)]

if __name__ == "__main__":
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    fieldapp.serve(OPTS["addr"])
