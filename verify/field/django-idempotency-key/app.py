"""A payouts-like Django app whose POST /v1/transfers is wrapped by
django-idempotency-key (the library under test, with its defaults: the
IdempotencyKeyMiddleware, MemoryKeyStorage and ThreadLock), for
retryspec's verify field suite (../README.md).

    python3 verify/field/django-idempotency-key/app.py --addr 127.0.0.1:8080 --effects /tmp/effects.jsonl

One file: settings, views and a threaded WSGI server (Django's own, as
runserver uses it, without the autoreloader).
"""

import json
import os
import secrets
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # nothing written into the repository
sys.path[:0] = [os.path.join(HERE, "..", ".deps", "python"), os.path.join(HERE, "..")]

import effects  # noqa: E402
from django.conf import settings  # noqa: E402

OPTS = effects.args(sys.argv[1:])

settings.configure(
    DEBUG=False,
    ALLOWED_HOSTS=["127.0.0.1", "localhost"],
    ROOT_URLCONF=__name__,
    SECRET_KEY="field-suite-only",
    MIDDLEWARE=["idempotency_key.middleware.IdempotencyKeyMiddleware"],
    INSTALLED_APPS=[],
    DATABASES={},
    IDEMPOTENCY_KEY={},  # the library's defaults, as its README starts
)

import django  # noqa: E402

django.setup()

from django.http import JsonResponse  # noqa: E402
from django.urls import path  # noqa: E402
from idempotency_key.decorators import idempotency_key_exempt  # noqa: E402


def transfers(request):
    account = request.headers.get("Authorization", "")
    if request.method == "GET":
        key = request.GET.get("idempotency_key", "")
        return JsonResponse({"count": effects.count(OPTS["effects"], account, key)})
    body = json.loads(request.body)
    key = request.headers.get("Idempotency-Key", "")
    effects.record(OPTS["effects"], account, key, body["amount"])
    bank = effects.charge_bank(key, body["amount"])
    out = dict(body, id="tr_" + secrets.token_hex(8), bank=bank, status="paid")
    return JsonResponse(out, status=201)


@idempotency_key_exempt
def healthz(request):
    return JsonResponse({"ok": True})


urlpatterns = [path("v1/transfers", transfers), path("healthz", healthz)]

if __name__ == "__main__":
    from django.core.handlers.wsgi import WSGIHandler
    from django.core.servers.basehttp import run

    host, port = OPTS["addr"].rsplit(":", 1)
    run(host, int(port), WSGIHandler(), threading=True)
