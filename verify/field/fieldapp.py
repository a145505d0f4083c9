"""What the field suite's Django apps share (see README.md): the views,
the effect log and the server; each app adds only its library's settings.

Every run of the transfer view appends one JSON line to a file that
survives a kill and a restart; verify's plans count a caller's lines for
a key through GET /v1/transfers?idempotency_key=K. The bank call goes to
verify's external-call stub (RETRYSPEC_EXTERNAL_URL) with a downstream key
derived from the client's key, as a careful app would choose it.

When the bank call fails (verify/failed-attempt makes its stub answer 500
once), the view has already written its effect: it writes an undo line,
as a careful app rolls back or compensates its own write, and answers
502. So a failed attempt that ran to its answer leaves no effect; one
killed before it answered (the crash gates) leaves its effect in place.
"""

import json
import os
import secrets
import urllib.request


def record(path, account, key, amount, undo=False):
    entry = {"account": account, "key": key, "amount": amount}
    if undo:
        entry["undo"] = True  # takes back one effect of this caller and key
    line = json.dumps(entry) + "\n"
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line.encode())
    finally:
        os.close(fd)


def count(path, account, key):
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except FileNotFoundError:
        return 0
    n = 0
    for line in lines:
        if line:
            e = json.loads(line)
            if e["account"] == account and e["key"] == key:
                n += -1 if e.get("undo") else 1
    return n


class BankError(Exception):
    """The bank call did not succeed (an error status, a refused connection)."""


def charge_bank(key, amount):
    base = os.environ.get("RETRYSPEC_EXTERNAL_URL")
    if not base:
        return "bank_offline"
    req = urllib.request.Request(
        base + "/charge_bank",
        data=json.dumps({"amount": amount}).encode(),
        headers={"Content-Type": "application/json", "Idempotency-Key": "charge-" + key},
        method="POST",
    )
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return json.load(resp)["id"]
    except OSError as e:  # urllib's HTTPError and URLError, a timeout
        raise BankError(str(e)) from e


def args(argv):
    """--addr HOST:PORT and --effects FILE (and --db FILE) from argv."""
    out = {"addr": "127.0.0.1:8080", "effects": "effects.jsonl", "db": "idempotency.sqlite3"}
    for i, a in enumerate(argv):
        if a.startswith("--") and a[2:] in out and i + 1 < len(argv):
            out[a[2:]] = argv[i + 1]
    return out


def configure(urlconf, **library_settings):
    """Configure Django for one app (ROOT_URLCONF is urlconf, the module
    that holds urlpatterns) with its library's settings, and set it up."""
    import django
    from django.conf import settings

    settings.configure(
        DEBUG=False,
        ALLOWED_HOSTS=["127.0.0.1", "localhost"],
        ROOT_URLCONF=urlconf,
        SECRET_KEY="field-suite-only",
        **library_settings,
    )
    django.setup()


def views(effects_file):
    """The transfer and health views, logging effects to effects_file.
    Call after configure."""
    from django.http import JsonResponse

    def transfers(request):
        account = request.headers.get("Authorization", "")
        if request.method == "GET":
            key = request.GET.get("idempotency_key", "")
            return JsonResponse({"count": count(effects_file, account, key)})
        body = json.loads(request.body)
        key = request.headers.get("Idempotency-Key", "")
        record(effects_file, account, key, body["amount"])
        try:
            bank = charge_bank(key, body["amount"])
        except BankError as e:
            record(effects_file, account, key, body["amount"], undo=True)
            return JsonResponse({"error": "bank_unavailable", "detail": str(e)}, status=502)
        out = dict(body, id="tr_" + secrets.token_hex(8), bank=bank, status="paid")
        return JsonResponse(out, status=201)

    def healthz(request):
        return JsonResponse({"ok": True})

    return transfers, healthz


def serve(addr):
    """Serve the configured Django project on addr (HOST:PORT) with
    Django's own threaded WSGI server, as runserver does, without the
    autoreloader."""
    from django.core.handlers.wsgi import WSGIHandler
    from django.core.servers.basehttp import run

    host, port = addr.rsplit(":", 1)
    run(host, int(port), WSGIHandler(), threading=True)
