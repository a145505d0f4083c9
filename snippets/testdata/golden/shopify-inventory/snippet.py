#!/usr/bin/env python3
"""Call the API with the contract's retry policy, using tenacity.

Requires: pip install "tenacity>=8.3"
Run: python3 snippet.py [idempotency-key]
Set RETRYSPEC_BASE_URL to call another base URL (a staging API, say).

The policy, as tenacity settings:
  - retry=retry_if_exception(should_retry): an allowlist of statuses, never a
    blanket catch; a cautious status (a 500 may be a bug that fails the same
    way again) is retried at most once.
  - wait: the server's Retry-After when it sends one, else full jitter
    (base 1000 ms, cap 30000 ms, multiplier 2.0).
  - stop=stop_after_attempt(3) | stop_before_delay(120): both bounds;
    the loop also shares one overall deadline with every attempt's timeout.
  - before_sleep logs each retry: attempt number, error, next wait.
"""
import http.client
import json
import os
import sys
import time
import urllib.error
import urllib.request
import uuid

from tenacity import (
    Retrying,
    retry_if_exception,
    stop_after_attempt,
    stop_before_delay,
    wait_random_exponential,
)

BASE_URL = os.environ.get("RETRYSPEC_BASE_URL") or "https://your-shop.myshopify.com"
METHOD = "POST"
PATH = "/admin/api/2026-04/graphql.json"
# The request is a GraphQL mutation (inventorySetQuantities); the key travels as this
# variable of its document, the same document on every attempt.
KEY_VARIABLE = "idempotencyKey"

RETRY_STATUSES = {429, 502, 503, 504}  # retried normally
RETRY_STATUS_CLASSES = set()  # e.g. 5 for 5XX
CAUTIOUS_STATUSES = {500}  # retried at most once
RETRY_AFTER_STATUSES = {429, 503}  # wait as long as Retry-After says
# The same key is still being processed: wait, then retry with the same key.
IN_FLIGHT_STATUS = 200
IN_FLIGHT_CODE = "IDEMPOTENCY_CONCURRENT_REQUEST"
# A 200 with an error entry here is a failed mutation: never retried, unless
# the entry is the in-flight conflict (JSON pointer /data/inventorySetQuantities/userErrors/0).
ENTRY_AT = ["data", "inventorySetQuantities", "userErrors", "0"]
# Where this API's error bodies carry their code (JSON pointer /data/inventorySetQuantities/userErrors/0/code).
ERROR_CODE_AT = ["data", "inventorySetQuantities", "userErrors", "0", "code"]
RETRY_TIMEOUT = True
RETRY_RESET = True
RETRY_REFUSED = True

BASE = 1  # seconds
CAP = 30
MULTIPLIER = 2.0
MAX_ATTEMPTS = 3  # including the first
MAX_ELAPSED = 120  # one overall deadline for the whole loop
ATTEMPT_TIMEOUT = 10  # per attempt, never past the deadline


class AttemptFailed(Exception):
    """One failed attempt; retryable says whether the policy allows another."""

    def __init__(self, message, retryable=False, cautious=False, retry_after=None):
        super().__init__(message)
        self.retryable = retryable
        self.cautious = cautious
        self.retry_after = retry_after


def with_key(body, key):
    """The request body with the key as the document's KEY_VARIABLE variable."""
    return {**body, "variables": {KEY_VARIABLE: key}}


def has_entry(payload):
    """Whether the answer carries an error entry at ENTRY_AT."""
    try:
        node = json.loads(payload)
    except ValueError:
        return False
    for token in ENTRY_AT:
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token == "0" and node:
            node = node[0]
        else:
            return False
    return node is not None


def has_code(payload, code):
    """Whether the JSON error body carries code at ERROR_CODE_AT."""
    try:
        node = json.loads(payload)
    except ValueError:
        return False
    for token in ERROR_CODE_AT:
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token == "0" and node:
            node = node[0]
        else:
            return False
    return node == code


def retry_after_seconds(value):
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        from email.utils import parsedate_to_datetime

        return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError):
        return None


def in_flight(status, payload):
    """Whether the answer says the first request with this key is still running."""
    return IN_FLIGHT_STATUS is not None and status == IN_FLIGHT_STATUS and has_code(payload, IN_FLIGHT_CODE)


def classify_status(status, headers, payload):
    error = f"HTTP {status}"
    if in_flight(status, payload):
        return AttemptFailed(f"{error} {IN_FLIGHT_CODE}", retryable=True)
    if status // 100 == 2:
        # Any other error entry (a payload mismatch included) fails the same way again.
        return AttemptFailed(f"{error} with an error entry")
    # Checked before the allowlist, so a 5XX class cannot lift its limit.
    if status in CAUTIOUS_STATUSES:
        return AttemptFailed(error, retryable=True, cautious=True)
    if status in RETRY_STATUSES or status // 100 in RETRY_STATUS_CLASSES:
        wait = retry_after_seconds(headers.get("Retry-After")) if status in RETRY_AFTER_STATUSES else None
        return AttemptFailed(error, retryable=True, retry_after=wait)
    # Any other 4xx (a payload-mismatch conflict included) fails the same way again.
    return AttemptFailed(error)


def classify_connection_error(err, has_key):
    reason = err.reason if isinstance(err, urllib.error.URLError) else err
    if isinstance(reason, TimeoutError):
        kind, allowed = "timeout", RETRY_TIMEOUT
    elif isinstance(reason, ConnectionRefusedError):
        kind, allowed = "connection refused", RETRY_REFUSED
    else:
        kind, allowed = f"connection error ({type(reason).__name__})", RETRY_RESET
    # A request that may have reached the server is repeated only under a key.
    return AttemptFailed(kind, retryable=allowed and has_key)


def post_with_retries(body, key=None):
    """POST body once per logical request; returns (status, response body)."""
    # One key per logical request, minted here (or the caller's own id) and
    # reused on every attempt: a fresh key per attempt would defeat it.
    key = key or str(uuid.uuid4())
    # The key goes into the body once, so every attempt sends the same bytes.
    data = json.dumps(with_key(body, key)).encode()
    deadline = time.monotonic() + MAX_ELAPSED
    state = {"attempt": 0, "cautious": 0}

    def attempt():
        state["attempt"] += 1
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise AttemptFailed("overall deadline passed")
        request = urllib.request.Request(
            BASE_URL + PATH,
            data=data,
            method=METHOD,
            headers={"Content-Type": "application/json"},
        )
        try:
            # urllib's timeout bounds each socket operation of the attempt.
            with urllib.request.urlopen(request, timeout=min(ATTEMPT_TIMEOUT, remaining)) as response:
                status, payload = response.status, response.read().decode()
                # A 200 with an error entry is not the result: the in-flight
                # conflict is retried, any other entry fails.
                if not in_flight(status, payload) and not has_entry(payload):
                    return status, payload
                failure = classify_status(status, response.headers, payload)
        except urllib.error.HTTPError as err:
            failure = classify_status(err.code, err.headers, err.read())
        except (urllib.error.URLError, OSError, http.client.HTTPException) as err:
            failure = classify_connection_error(err, key is not None)
        if failure.cautious:
            state["cautious"] += 1
        raise failure

    def should_retry(err):
        if not isinstance(err, AttemptFailed) or not err.retryable:
            return False
        return not (err.cautious and state["cautious"] > 1)

    # Full jitter: random(0, min(CAP, BASE * MULTIPLIER ** (attempt - 1))).
    backoff = wait_random_exponential(multiplier=BASE, max=CAP, exp_base=MULTIPLIER)

    def wait(retry_state):
        err = retry_state.outcome.exception()
        if getattr(err, "retry_after", None) is not None:
            return err.retry_after
        return backoff(retry_state)

    def log_retry(retry_state):
        err = retry_state.outcome.exception()
        print(
            f"attempt {retry_state.attempt_number} failed: {err}; "
            f"retrying in {round(retry_state.next_action.sleep * 1000)} ms",
            file=sys.stderr,
        )

    retrying = Retrying(
        retry=retry_if_exception(should_retry),
        wait=wait,
        stop=stop_after_attempt(MAX_ATTEMPTS) | stop_before_delay(MAX_ELAPSED),
        before_sleep=log_retry,
        reraise=True,
    )
    try:
        return retrying(attempt)
    except AttemptFailed as err:
        raise AttemptFailed(f"giving up after attempt {state['attempt']}: {err}") from err


def main():
    key = sys.argv[1] if len(sys.argv) > 1 else None
    try:
        status, payload = post_with_retries({"query": "mutation inventorySetQuantities($idempotencyKey: String!) { inventorySetQuantities(input: {name: \"available\", reason: \"correction\", quantities: [{inventoryItemId: \"gid://shopify/InventoryItem/123\", locationId: \"gid://shopify/Location/456\", quantity: 11, compareQuantity: 10}]}) @idempotent(key: $idempotencyKey) { userErrors { code message } } }"}, key)
    except AttemptFailed as err:
        print(err, file=sys.stderr)
        return 1
    print(f"HTTP {status}: {payload}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
