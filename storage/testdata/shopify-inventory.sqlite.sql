-- retryspec storage --dialect sqlite: the idempotency key table and the statements that keep the contract.
-- Generated from retryspec.yaml (api "Shopify Admin GraphQL (inventory)"). Regenerate after changing idempotency.*; do not edit.
-- Times are microseconds since the Unix epoch (UTC), from the service's clock: the same
-- arithmetic in every dialect, and a test can move the clock.

CREATE TABLE IF NOT EXISTS idempotency_keys (
  account_id TEXT NOT NULL, -- idempotency.scope: account, so keys are per caller
  idempotency_key TEXT NOT NULL, -- idempotency.header Idempotency-Key; idempotency.max_key_length 36
  operation TEXT NOT NULL, -- endpoints[].operation the key was first used on
  fingerprint TEXT NOT NULL, -- idempotency.fingerprint sha256-body (empty when none)
  request_body BLOB, -- the request, so the completer can resume it
  fence INTEGER NOT NULL, -- fencing token: 1 at the claim, +1 at each takeover
  locked_at INTEGER, -- in-flight lease start; NULL once complete (idempotency.in_flight.lock_timeout)
  recovery_point TEXT NOT NULL, -- endpoints[].recovery_points: where a retry resumes
  downstream_keys TEXT, -- JSON object: external call -> the key sent with it (endpoints[].external_calls)
  response_status INTEGER, -- stored outcome (idempotency.stored_response, idempotency.stored_failures)
  response_headers TEXT, -- JSON object of the stored response's headers
  response_body BLOB, -- the stored body, replayed byte for byte
  created_at INTEGER NOT NULL, -- idempotency.replay_window 24h, idempotency.reaper_after 72h
  completed_at INTEGER,
  request_target TEXT, -- the request's path and query, so the completer can rebuild it (NULL in rows from before this column)
  CHECK (length(idempotency_key) <= 36), -- idempotency.max_key_length
  -- the claim: the database picks the single winner (idempotency.claim.mechanism unique-constraint)
  CONSTRAINT idempotency_keys_claim UNIQUE (account_id, idempotency_key)
);

CREATE INDEX IF NOT EXISTS idempotency_keys_locked_at ON idempotency_keys (locked_at);

CREATE INDEX IF NOT EXISTS idempotency_keys_created_at ON idempotency_keys (created_at);

-- A key table created by an earlier release lacks these columns; add each one it lacks
-- (stores.Open with migrate does it). Rows written before hold NULL there.
--   ALTER TABLE idempotency_keys ADD COLUMN request_target TEXT;

-- name: Claim :one
-- Claim the key: one insert the unique constraint arbitrates; the fencing token is 1.
-- idempotency.claim.mechanism unique-constraint; idempotency.scope account.
-- A returned row means this caller won; no row, that the key exists (read it with Lookup).
-- params: account_id, idempotency_key, operation, fingerprint, request_body, request_target, now, recovery_point, now
INSERT INTO idempotency_keys (account_id, idempotency_key, operation, fingerprint, request_body, request_target, fence, locked_at, recovery_point, downstream_keys, created_at)
VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?, '{}', ?)
ON CONFLICT (account_id, idempotency_key) DO NOTHING
RETURNING fence;

-- name: Lookup :one
-- A caller that lost the claim reads the row and branches on its state: complete
-- (response_status set: compare idempotency.fingerprint, then replay), or in flight
-- (idempotency.in_flight.response, or Takeover once idempotency.in_flight.lock_timeout passed).
-- params: account_id, idempotency_key
SELECT operation, fingerprint, request_body, fence, locked_at, recovery_point, downstream_keys, response_status, response_headers, response_body, created_at, request_target
FROM idempotency_keys
WHERE account_id = ? AND idempotency_key = ?;

-- name: Takeover :execrows
-- Take over an abandoned claim: only while it is in flight, its lease older than idempotency.in_flight.lock_timeout (1m),
-- and still under the token the caller read (so of two takers exactly one wins). The new token is that token + 1.
-- idempotency.in_flight.takeover conditional-update.
-- params: now, account_id, idempotency_key, fence, now
UPDATE idempotency_keys
SET fence = fence + 1, locked_at = ?
WHERE account_id = ? AND idempotency_key = ?
  AND fence = ? AND response_status IS NULL
  AND locked_at <= ? - 60000000;

-- name: Checkpoint :execrows
-- Record a recovery point (endpoints[].recovery_points) and the downstream keys chosen for
-- external calls (endpoints[].external_calls), renewing the lease. Fenced: 0 rows means
-- another worker took the key over and this one must stop.
-- params: recovery_point, downstream_keys, now, account_id, idempotency_key, fence
UPDATE idempotency_keys
SET recovery_point = ?, downstream_keys = ?, locked_at = ?
WHERE account_id = ? AND idempotency_key = ?
  AND fence = ? AND response_status IS NULL;

-- name: Complete :execrows
-- Store the response verbatim (idempotency.stored_response verbatim, idempotency.stored_failures replay)
-- and end the lease. Fenced: 0 rows means this worker lost the key and its response is not stored.
-- params: response_status, response_headers, response_body, recovery_point, now, account_id, idempotency_key, fence
UPDATE idempotency_keys
SET response_status = ?, response_headers = ?, response_body = ?,
    recovery_point = ?, locked_at = NULL, completed_at = ?
WHERE account_id = ? AND idempotency_key = ?
  AND fence = ? AND response_status IS NULL;

-- name: Release :execrows
-- End the lease without a stored response, keeping the recovery point, so the next retry
-- takes over at once and resumes (idempotency.stored_failures reattempt; a handler that gave up). Fenced.
-- params: account_id, idempotency_key, fence
UPDATE idempotency_keys
SET locked_at = 0
WHERE account_id = ? AND idempotency_key = ?
  AND fence = ? AND response_status IS NULL;

-- name: Expire :execrows
-- Forget a completed key older than idempotency.replay_window (24h), so its reuse is a new request
-- (idempotency.after_window new-request). Matches the token read, so a fresh claim is never deleted.
-- params: account_id, idempotency_key, fence, now
DELETE FROM idempotency_keys
WHERE account_id = ? AND idempotency_key = ?
  AND fence = ? AND response_status IS NOT NULL
  AND created_at <= ? - 86400000000;

-- name: Reap :execrows
-- Delete keys older than idempotency.reaper_after (72h), at most :limit per run; run it until it deletes none.
-- idempotency.recovery.reaper true.
-- params: now, limit
DELETE FROM idempotency_keys
WHERE (account_id, idempotency_key) IN (
  SELECT account_id, idempotency_key FROM idempotency_keys
  WHERE created_at <= ? - 259200000000
  ORDER BY created_at
  LIMIT ?);

-- name: Stale :many
-- Abandoned in-flight keys, lease older than idempotency.in_flight.lock_timeout (1m), oldest first,
-- for the completer (idempotency.recovery.completer true) to take over and finish.
-- params: now, limit
SELECT account_id, idempotency_key, operation, fence, recovery_point
FROM idempotency_keys
WHERE response_status IS NULL AND locked_at <= ? - 60000000
ORDER BY locked_at
LIMIT ?;
