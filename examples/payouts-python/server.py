#!/usr/bin/env python3
"""A small payouts API in the Python standard library, independent of the Go
reference server, implementing examples/payouts/retryspec.yaml:

  POST /v1/transfers                         keyed; calls charge_bank then send_receipt
  GET  /v1/transfers?idempotency_key=KEY     {"count": n, "data": [...]}: the effect count
  GET  /healthz

It exists so `retryspec verify` is proven against a server it did not grow up
with. Keys live in SQLite (stdlib sqlite3), claimed with a primary key on
(account, key); multi-step requests record a recovery point and the
downstream key of each external call before making it, so a retry after a
crash resumes. A claim left by a dead process (another boot id) is taken
over at once; a live one answers 409 concurrent_idempotent_requests.

--flaw NAME switches in one classic mistake, each caught by one verify gate:

  select-then-insert        SELECT the key, work, then INSERT it: a race (verify/concurrency)
  missing-key-generated     mint a key when the client sent none (verify/missing-key)
  key-truncated             cut long keys to 255 instead of refusing them (verify/key-too-long)
  replay-reserialized       re-encode the stored body on replay (verify/replay)
  mismatch-ignored          no fingerprint check: another body replays (verify/mismatch)
  unscoped-keys             keys unique globally, not per account (verify/scope)
  retry-new-downstream-key  a fresh bank key on every attempt (verify/crash-recovery)
  recall-recorded           on resume, call the bank again with its stored key although
                            the charge is recorded (verify/crash-recovery: no repeated call)
  forget-completed          completed keys are lost on restart, as an in-memory store's
                            are (verify/restart-replay)
  window-ignored            a completed key replays for ever, past --replay-window
                            (verify/after-window)
  failure-stored            a failed attempt's 503 is stored and replayed to every
                            retry, poisoning the key (verify/failed-attempt)

Keys replay for --replay-window seconds (the contract's replay_window, 24h);
after that a key is a new request (after_window: new-request). A test starts
the server with a short window and states it in verify's plan.

Run: python3 server.py --addr 127.0.0.1:8080 --db /tmp/payouts.sqlite
"""

import argparse
import hashlib
import json
import os
import sqlite3
import sys
import tempfile
import threading
import time
import urllib.request
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

FLAWS = [
    "select-then-insert",
    "missing-key-generated",
    "key-truncated",
    "replay-reserialized",
    "mismatch-ignored",
    "unscoped-keys",
    "retry-new-downstream-key",
    "recall-recorded",
    "forget-completed",
    "window-ignored",
    "failure-stored",
]
MAX_KEY_LENGTH = 255
LOCK_TIMEOUT = 120.0  # the contract's in_flight.lock_timeout: 2m
BOOT = uuid.uuid4().hex  # claims owned by another boot belong to a dead process

ARGS = None


def db():
    conn = sqlite3.connect(ARGS.db, timeout=30, isolation_level=None)
    conn.execute("PRAGMA busy_timeout = 30000")
    return conn


def init_db():
    conn = db()
    conn.execute("PRAGMA journal_mode = WAL")
    if ARGS.flaw == "select-then-insert":
        key_constraint = ""  # no uniqueness: the application "checks" instead
    elif ARGS.flaw == "unscoped-keys":
        key_constraint = ", PRIMARY KEY (key)"
    else:
        key_constraint = ", PRIMARY KEY (account, key)"
    conn.execute(
        "CREATE TABLE IF NOT EXISTS idempotency_keys ("
        " account TEXT NOT NULL, key TEXT NOT NULL, fingerprint TEXT NOT NULL,"
        " state TEXT NOT NULL, recovery_point TEXT NOT NULL, owner TEXT NOT NULL, locked_at REAL NOT NULL,"
        " request BLOB NOT NULL, transfer_id TEXT, charge_key TEXT, charge_id TEXT, receipt_key TEXT, receipt_id TEXT,"
        " status INTEGER, body BLOB, created_at REAL NOT NULL DEFAULT 0" + key_constraint + ")"
    )
    try:  # a database file from before the replay window
        conn.execute("ALTER TABLE idempotency_keys ADD COLUMN created_at REAL NOT NULL DEFAULT 0")
    except sqlite3.OperationalError:
        pass
    if ARGS.flaw == "forget-completed":
        # the flaw: completed responses behave like an in-memory cache, lost on restart
        conn.execute("DELETE FROM idempotency_keys WHERE state = 'complete'")
    conn.execute(
        "CREATE TABLE IF NOT EXISTS transfers ("
        " id TEXT PRIMARY KEY, account TEXT NOT NULL, idempotency_key TEXT NOT NULL,"
        " amount INTEGER NOT NULL, currency TEXT NOT NULL, destination TEXT NOT NULL)"
    )
    conn.close()


def compact(obj):
    return json.dumps(obj, separators=(",", ":")).encode()


def error_body(code, message):
    return compact({"error": {"code": code, "message": message}})


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "payouts-py"

    def log_message(self, fmt, *args):  # quiet: verify keeps the last lines for errors
        if ARGS.verbose:
            sys.stderr.write("%s\n" % (fmt % args))

    def reply(self, status, body, headers=None):
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def account(self):
        auth = self.headers.get("Authorization", "")
        if not auth.startswith("Bearer ") or len(auth) < 8:
            return None
        return "acct_" + hashlib.sha256(auth[7:].encode()).hexdigest()[:12]

    def do_GET(self):
        url = urlsplit(self.path)
        if url.path == "/healthz":
            return self.reply(200, b'{"ok":true}')
        if url.path != "/v1/transfers":
            return self.reply(404, error_body("not_found", "no such route"))
        account = self.account()
        if account is None:
            return self.reply(401, error_body("unauthenticated", "send Authorization: Bearer <token>"))
        key = parse_qs(url.query).get("idempotency_key", [""])[0]
        if ARGS.flaw == "key-truncated":
            key = key[:MAX_KEY_LENGTH]
        conn = db()
        rows = conn.execute(
            "SELECT id, amount, currency, destination FROM transfers WHERE account = ? AND idempotency_key = ? ORDER BY id",
            (account, key),
        ).fetchall()
        conn.close()
        data = [{"id": r[0], "amount": r[1], "currency": r[2], "destination": r[3]} for r in rows]
        self.reply(200, compact({"count": len(data), "data": data}))

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length > 0 else b""
        if urlsplit(self.path).path != "/v1/transfers":
            return self.reply(404, error_body("not_found", "no such route"))
        account = self.account()
        if account is None:
            return self.reply(401, error_body("unauthenticated", "send Authorization: Bearer <token>"))
        key = self.headers.get("Idempotency-Key", "")
        if key == "":
            if ARGS.flaw == "missing-key-generated":
                key = uuid.uuid4().hex  # the flaw: the server mints the key, so retries are unprotected
            else:
                return self.reply(400, error_body("missing_idempotency_key", "send an Idempotency-Key header"))
        if len(key) > MAX_KEY_LENGTH:
            if ARGS.flaw == "key-truncated":
                key = key[:MAX_KEY_LENGTH]
            else:
                return self.reply(400, error_body("invalid_idempotency_key", "keys are at most %d characters" % MAX_KEY_LENGTH))
        try:
            req = json.loads(raw)
            amount, currency, destination = req["amount"], req["currency"], req["destination"]
            if not isinstance(amount, int) or amount <= 0 or not isinstance(currency, str) or not isinstance(destination, str):
                raise ValueError
        except Exception:
            return self.reply(422, error_body("invalid_request", "send amount (a positive integer), currency and destination"))
        fingerprint = hashlib.sha256(raw).hexdigest()
        status, body, headers = Transfer(account, key, fingerprint, raw).run()
        self.reply(status, body, headers)


class Transfer:
    def __init__(self, account, key, fingerprint, raw):
        self.account, self.key, self.fingerprint, self.raw = account, key, fingerprint, raw
        self.owned = False  # this attempt holds the claim (won it or took it over)
        self.conn = db()

    def where(self):
        if ARGS.flaw == "unscoped-keys":
            return "key = ?", (self.key,)
        return "account = ? AND key = ?", (self.account, self.key)

    def row(self):
        w, args = self.where()
        return self.conn.execute(
            "SELECT fingerprint, state, recovery_point, owner, locked_at, status, body, rowid, created_at FROM idempotency_keys WHERE "
            + w + " ORDER BY rowid LIMIT 1",
            args,
        ).fetchone()

    def run(self):
        try:
            return self.claim_and_work()
        except Exception as e:  # a downstream failure: released at its recovery point for a retry to resume
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            sys.stderr.write("transfer %s failed: %r\n" % (self.key, e))
            body = error_body("unavailable", "try again with the same key")
            if self.owned:  # only the attempt that holds the claim may release it
                if ARGS.flaw == "failure-stored":
                    # the flaw: the 503 is kept as the key's outcome, so every retry gets it back
                    sets, values = "state = 'complete', status = 503, body = ?", (body,)
                else:
                    sets, values = "owner = '', locked_at = 0", ()
                self.conn.execute("UPDATE idempotency_keys SET " + sets + " WHERE rowid = ? AND owner = ?", values + (self.rowid, BOOT))
            return 503, body, {"Retry-After": "1"}
        finally:
            self.conn.close()

    def claim_and_work(self):
        for _ in range(3):  # once more after an expired key is forgotten
            answer = self.claim_once()
            if answer is not None:
                return answer
        return 503, error_body("unavailable", "try again with the same key"), {"Retry-After": "1"}

    def claim_once(self):
        now = time.time()
        insert = (
            "INSERT %s INTO idempotency_keys (account, key, fingerprint, state, recovery_point, owner, locked_at, request, created_at)"
            " VALUES (?, ?, ?, 'in_flight', 'started', ?, ?, ?, ?)"
        )
        values = (self.account, self.key, self.fingerprint, BOOT, now, self.raw, now)
        if ARGS.flaw == "select-then-insert":
            won = False
            if self.row() is None:
                time.sleep(ARGS.work_ms / 1000.0)  # validation, fraud checks... the race window
                self.rowid = self.conn.execute(insert % "", values).lastrowid
                won = True
        else:
            self.conn.execute("BEGIN IMMEDIATE")
            cur = self.conn.execute(insert % "OR IGNORE", values)
            won, self.rowid = cur.rowcount == 1, cur.lastrowid
            self.conn.execute("COMMIT")
        if not won:
            r = self.row()
            if r is None:
                return None  # forgotten since the claim: claim again
            fingerprint, state, _, owner, locked_at, status, body, self.rowid, created_at = r
            if state == "complete" and now - created_at >= ARGS.replay_window and ARGS.flaw != "window-ignored":
                # after_window: new-request: the old outcome is forgotten and the key claimed anew
                self.conn.execute("DELETE FROM idempotency_keys WHERE rowid = ? AND state = 'complete'", (self.rowid,))
                return None
            if fingerprint != self.fingerprint and ARGS.flaw != "mismatch-ignored":
                return 409, error_body("invalid_idempotent_request", "this key was used with another request body"), {}
            if state == "complete":
                if ARGS.flaw == "replay-reserialized":
                    body = json.dumps(json.loads(body)).encode()  # the flaw: re-encoded, not the stored bytes
                return status, bytes(body), {"Idempotent-Replayed": "true"}
            if owner == BOOT and now - locked_at < LOCK_TIMEOUT:
                return 409, error_body("concurrent_idempotent_requests", "a request with this key is in progress; retry later"), {"Retry-After": "1"}
            # Abandoned (its process died, or its lock expired): take it over,
            # conditionally, so two retries cannot both resume it.
            self.conn.execute("BEGIN IMMEDIATE")
            took = self.conn.execute(
                "UPDATE idempotency_keys SET owner = ?, locked_at = ? WHERE rowid = ? AND owner = ? AND locked_at = ? AND state = 'in_flight'",
                (BOOT, now, self.rowid, owner, locked_at),
            ).rowcount == 1
            self.conn.execute("COMMIT")
            if not took:
                return 409, error_body("concurrent_idempotent_requests", "a request with this key is in progress; retry later"), {"Retry-After": "1"}
        elif ARGS.flaw != "select-then-insert":
            time.sleep(ARGS.work_ms / 1000.0)  # the same work, inside the claim
        self.owned = True
        return self.resume()

    def load(self):
        return self.conn.execute(
            "SELECT recovery_point, transfer_id, charge_key, charge_id, receipt_key, receipt_id, request FROM idempotency_keys"
            " WHERE rowid = ? AND owner = ?",
            (self.rowid, BOOT),
        ).fetchone()

    def checkpoint(self, sets, values, extra=None):
        """Move to the next recovery point, fenced on ownership, in one transaction with extra."""
        self.conn.execute("BEGIN IMMEDIATE")
        if extra:
            extra()
        n = self.conn.execute(
            "UPDATE idempotency_keys SET " + sets + " WHERE rowid = ? AND owner = ?", tuple(values) + (self.rowid, BOOT)
        ).rowcount
        if n != 1:
            self.conn.execute("ROLLBACK")
            raise RuntimeError("lost the claim")
        self.conn.execute("COMMIT")

    def resume(self):
        resumed = None  # whether this attempt picked up another's recovery point
        for _ in range(8):  # one pass per recovery point
            rp, transfer_id, charge_key, charge_id, receipt_key, receipt_id, request = self.load()
            if resumed is None:
                resumed = rp != "started"
            req = json.loads(request)
            if rp == "started":
                transfer_id = "tr_" + uuid.uuid4().hex[:16]

                def create():
                    self.conn.execute(
                        "INSERT INTO transfers (id, account, idempotency_key, amount, currency, destination) VALUES (?, ?, ?, ?, ?, ?)",
                        (transfer_id, self.account, self.key, req["amount"], req["currency"], req["destination"]),
                    )

                # The transfer row and the recovery point commit together, with
                # the downstream key for the bank chosen before calling it.
                self.checkpoint("recovery_point = 'transfer_created', transfer_id = ?, charge_key = ?", (transfer_id, uuid.uuid4().hex), create)
            elif rp == "transfer_created":
                key = charge_key
                if ARGS.flaw == "retry-new-downstream-key":
                    key = uuid.uuid4().hex  # the flaw: a new key per attempt, so a retry charges again
                answer = external("charge_bank", key, {"transfer": transfer_id, "amount": req["amount"], "currency": req["currency"]})
                self.checkpoint("recovery_point = 'bank_charged', charge_id = ?, receipt_key = ?", (answer, uuid.uuid4().hex))
            elif rp == "bank_charged":
                if ARGS.flaw == "recall-recorded" and resumed:
                    # the flaw: "confirm" a charge whose result is recorded by calling
                    # the bank again; its stored key keeps it one charge, but the call repeats
                    external("charge_bank", charge_key, {"transfer": transfer_id, "amount": req["amount"], "currency": req["currency"]})
                answer = external("send_receipt", receipt_key, {"transfer": transfer_id, "destination": req["destination"]})
                self.checkpoint("recovery_point = 'receipt_sent', receipt_id = ?", (answer,))
            elif rp == "receipt_sent":
                body = compact({
                    "id": transfer_id, "object": "transfer", "amount": req["amount"], "currency": req["currency"],
                    "destination": req["destination"], "charge": charge_id, "receipt": receipt_id, "status": "paid",
                })
                self.checkpoint("recovery_point = 'finished', state = 'complete', status = 201, body = ?", (body,))
                return 201, body, {}
            else:
                break
        return 500, error_body("internal", "unexpected recovery point"), {}


def external(name, key, payload):
    base = os.environ.get("RETRYSPEC_EXTERNAL_URL", "")
    if not base:
        return "%s_local_%s" % (name, key[:8])
    req = urllib.request.Request(
        base.rstrip("/") + "/" + name, data=compact(payload), method="POST",
        headers={"Content-Type": "application/json", "Idempotency-Key": key},
    )
    with urllib.request.urlopen(req, timeout=10) as resp:
        return json.loads(resp.read())["id"]


def main():
    global ARGS
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--addr", default="127.0.0.1:8080")
    p.add_argument("--db", default="", help="SQLite file (default: one per port in the temp folder)")
    p.add_argument("--flaw", default="", choices=[""] + FLAWS)
    p.add_argument("--work-ms", type=int, default=25, help="time the ledger work takes per transfer")
    p.add_argument("--replay-window", type=float, default=86400.0, help="seconds a key replays its outcome (the contract's replay_window, 24h)")
    p.add_argument("--verbose", action="store_true")
    ARGS = p.parse_args()
    host, _, port = ARGS.addr.rpartition(":")
    if not ARGS.db:
        ARGS.db = os.path.join(tempfile.gettempdir(), "payouts-py-%s.sqlite" % port)
    init_db()
    httpd = ThreadingHTTPServer((host, int(port)), Handler)
    httpd.daemon_threads = True
    print("payouts-py listening on %s (db %s, flaw %s)" % (ARGS.addr, ARGS.db, ARGS.flaw or "none"), flush=True)
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
