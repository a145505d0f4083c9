"""A payouts-like Django app whose POST /v1/transfers is wrapped by
django-idempotency-key (the library under test, with its defaults: the
IdempotencyKeyMiddleware, MemoryKeyStorage and ThreadLock), for
retryspec's verify field suite (../README.md).

    python3 verify/field/django-idempotency-key/app.py --addr 127.0.0.1:8080 --effects /tmp/effects.jsonl

The views and the server are ../fieldapp.py's, shared with the other
Django app; this file holds the library's settings.
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
    MIDDLEWARE=["idempotency_key.middleware.IdempotencyKeyMiddleware"],
    INSTALLED_APPS=[],
    DATABASES={},
    IDEMPOTENCY_KEY={},  # the library's defaults, as its README starts
)

from django.urls import path  # noqa: E402

transfers, healthz = fieldapp.views(OPTS["effects"])

urlpatterns = [path("v1/transfers", transfers), path("healthz", healthz)]

if __name__ == "__main__":
    fieldapp.serve(OPTS["addr"])
