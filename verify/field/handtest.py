"""The field suite's hand test: what each library does, observed without verify.

    python3 verify/field/handtest.py django-idempotency-key|drf-idempotency|nestjs

Run from the repository root after .ci/install-verifyfield. It starts the
library's app (as its plan does), with a bank stub of its own, and prints
what each scenario saw: statuses, bodies, headers and the effect counts
read through the app's GET /v1/transfers?idempotency_key=K. It judges
nothing: the verdicts in README.md were written from this output and from
reading each library's code. It shares no code with verify on purpose.
"""

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

APPS = {
    "django-idempotency-key": ["python3", "verify/field/django-idempotency-key/app.py"],
    "drf-idempotency": ["python3", "verify/field/drf-idempotency/app.py"],
    "nestjs": ["node", "verify/field/nestjs/app.js"],
}
# The replay window each app runs (its library's setting), for the
# after-window scenario; None: the library has no window to configure.
WINDOWS = {"django-idempotency-key": None, "drf-idempotency": 30, "nestjs": 30}
BODY = {"amount": 1000, "currency": "usd", "destination": "acct_1"}
A, B = "Bearer acct_field_1", "Bearer acct_field_2"


class Bank(BaseHTTPRequestHandler):
    calls = []  # (call, key)
    on_arrival = None  # called with the key before the bank answers
    fail_next = False  # answer the next call 500 (the failed-attempt scenario)

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        key = self.headers.get("Idempotency-Key")
        hook = Bank.on_arrival
        if hook:
            Bank.on_arrival = None
            hook(key)
        Bank.calls.append((self.path, key))
        status = 200
        if Bank.fail_next:
            Bank.fail_next, status = False, 500
        out = json.dumps({"id": "bank_%d" % len(Bank.calls)} if status == 200 else {"error": "bank_down"}).encode()
        self.send_response(status)
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        try:
            self.wfile.write(out)
        except OSError:
            pass  # the app was killed while it waited

    def log_message(self, *a):
        pass


class App:
    def __init__(self, name, bank_url):
        self.name, self.dir = name, tempfile.mkdtemp()
        self.env = dict(os.environ, RETRYSPEC_EXTERNAL_URL=bank_url)
        self.proc = None

    def start(self):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        self.port = s.getsockname()[1]
        s.close()
        cmd = APPS[self.name] + ["--addr", "127.0.0.1:%d" % self.port,
                                 "--effects", os.path.join(self.dir, "effects.jsonl"),
                                 "--db", os.path.join(self.dir, "idem.sqlite3")]
        self.log = open(os.path.join(self.dir, "app.log"), "a")
        self.proc = subprocess.Popen(cmd, env=self.env, stdout=self.log, stderr=self.log, start_new_session=True)
        for _ in range(300):
            try:
                if self.get("/healthz")[0] == 200:
                    return
            except OSError:
                time.sleep(0.1)
        raise SystemExit("app did not start; see " + self.log.name)

    def kill(self):
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def req(self, method, path, body=None, headers=None):
        data = json.dumps(body).encode() if body is not None else None
        r = urllib.request.Request("http://127.0.0.1:%d%s" % (self.port, path), data=data, method=method,
                                   headers=dict({"Content-Type": "application/json"}, **(headers or {})))
        try:
            with urllib.request.urlopen(r, timeout=30) as resp:
                return resp.status, resp.read(), dict(resp.headers)
        except urllib.error.HTTPError as e:
            return e.code, e.read(), dict(e.headers)

    def get(self, path, who=A):
        return self.req("GET", path, headers={"Authorization": who})

    def post(self, key, body=BODY, who=A):
        h = {"Authorization": who}
        if key is not None:
            h["Idempotency-Key"] = key
        return self.req("POST", "/v1/transfers", body, h)

    def count(self, key, who=A):
        time.sleep(1)  # let anything the app does after answering land
        return json.loads(self.get("/v1/transfers?idempotency_key=" + key, who)[1])["count"]


def show(label, resp):
    status, body, headers = resp
    replayed = headers.get("Idempotent-Replayed")
    print("  %s: %d %s%s" % (label, status, body.decode()[:160], "  [Idempotent-Replayed: %s]" % replayed if replayed else ""))


def scenarios_of_the_new_gates(app, key):
    """failed-attempt, key-form and after-window (last: it waits)."""
    print("failed first attempt (the bank answers 500 once), then the same key again:")
    k = key()
    Bank.calls.clear()
    Bank.fail_next = True
    show("first attempt", app.post(k))
    print("  effects after the failed attempt:", app.count(k))
    show("retry", app.post(k))
    print("  effects:", app.count(k), " bank calls:", len(Bank.calls))

    print("key form (the same key bare and in sf-string quotes):")
    k = key()
    show("bare key", app.post(k))
    show("quoted key", app.post('"%s"' % k))
    print("  effects: bare", app.count(k), "quoted", app.count('"%s"' % k))

    window = WINDOWS[app.name]
    wait = (window or 30) + 1
    print("after the window (%s), the same key again after %d s:" % ("%d s" % window if window else "the library has none", wait))
    k = key()
    show("first", app.post(k))
    time.sleep(wait)
    show("after the window", app.post(k))
    print("  effects:", app.count(k))


def main(name):
    bank = ThreadingHTTPServer(("127.0.0.1", 0), Bank)
    threading.Thread(target=bank.serve_forever, daemon=True).start()
    app = App(name, "http://127.0.0.1:%d" % bank.server_address[1])
    app.start()
    key = lambda: secrets.token_hex(16)  # noqa: E731

    print("missing key:")
    show("POST without Idempotency-Key", app.post(None))

    for n in (255, 256, 257):
        k = "k" * n
        print("key of %d characters:" % n)
        show("POST", app.post(k))
        print("  effects:", app.count(k))

    print("concurrency (16 requests, one key, released together):")
    k, barrier, got = key(), threading.Barrier(16), []

    def one():
        barrier.wait()
        got.append(app.post(k))
    ts = [threading.Thread(target=one) for _ in range(16)]
    [t.start() for t in ts]
    [t.join() for t in ts]
    statuses = {}
    for s, _, _ in got:
        statuses[s] = statuses.get(s, 0) + 1
    print("  statuses:", statuses, " distinct bodies:", len({b for _, b, _ in got}))
    print("  effects:", app.count(k))

    print("replay:")
    k = key()
    first, again = app.post(k), app.post(k)
    show("first", first)
    show("again", again)
    print("  byte-identical body:", first[1] == again[1], " effects:", app.count(k))

    print("mismatch (same key, amount + 1):")
    k = key()
    show("first", app.post(k))
    show("other body", app.post(k, dict(BODY, amount=1001)))
    print("  effects:", app.count(k))

    print("scope (same key from a second caller):")
    k = key()
    first, other = app.post(k), app.post(k, who=B)
    show("first caller", first)
    show("second caller", other)
    print("  same body:", first[1] == other[1], " effects: first caller", app.count(k), "second caller", app.count(k, B))

    print("restart and replay:")
    k = key()
    show("first", app.post(k))
    app.kill()
    app.start()
    show("after restart", app.post(k))
    print("  effects:", app.count(k))

    print("crash at the bank call (killed when charge_bank arrives), restart, retry:")
    k = key()
    Bank.calls.clear()
    Bank.on_arrival = lambda _key: app.kill()
    try:
        app.post(k)
    except OSError as e:
        print("  first attempt:", type(e).__name__)
    app.start()
    deadline = time.time() + 30
    while True:
        resp = app.post(k)
        show("retry", resp)
        if resp[0] != 409 or time.time() > deadline:
            break
        time.sleep(0.5)
    print("  effects:", app.count(k), " bank calls:", Bank.calls)

    scenarios_of_the_new_gates(app, key)
    app.kill()


if __name__ == "__main__":
    main(sys.argv[1])
