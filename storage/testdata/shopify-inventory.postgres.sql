-- retryspec storage --dialect postgres: the idempotency key table and the statements that keep the contract.
-- Generated from retryspec.yaml (api "Shopify Admin GraphQL (inventory)"). Regenerate after changing idempotency.*; do not edit.
-- Times are microseconds since the Unix epoch (UTC), from the service's clock: the same
-- arithmetic in every dialect, and a test can move the clock.

CREATE TABLE IF NOT EXISTS idempotency_keys (
  account_id VARCHAR(255) NOT NULL, -- idempotency.scope: account, so keys are per caller
  idempotency_key VARCHAR(36) NOT NULL, -- idempotency.header Idempotency-Key; idempotency.max_key_length 36
  operation VARCHAR(255) NOT NULL, -- endpoints[].operation the key was first used on
  fingerprint VARCHAR(255) NOT NULL, -- idempotency.fingerprint sha256-body (empty when none)
  request_body BYTEA, -- the request, so the completer can resume it
  fence BIGINT NOT NULL, -- fencing token: 1 at the claim, +1 at each takeover
  locked_at BIGINT, -- in-flight lease start; NULL once complete (idempotency.in_flight.lock_timeout)
  recovery_point VARCHAR(255) NOT NULL, -- endpoints[].recovery_points: where a retry resumes
  downstream_keys TEXT, -- JSON object: external call -> the key sent with it (endpoints[].external_calls)
  response_status INTEGER, -- stored outcome (idempotency.stored_response, idempotency.stored_failures)
  response_headers TEXT, -- JSON object of the stored response's headers
  response_body BYTEA, -- the stored body, replayed byte for byte
  created_at BIGINT NOT NULL, -- idempotency.replay_window 24h, idempotency.reaper_after 72h
  completed_at BIGINT,
  request_target TEXT, -- the request's path and query, so the completer can rebuild it (NULL in rows from before this column)
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
VALUES ($1, $2, $3, $4, $5, $6, 1, $7::bigint, $8, '{}', $9::bigint)
ON CONFLICT (account_id, idempotency_key) DO NOTHING
RETURNING fence;

-- name: Lookup :one
-- A caller that lost the claim reads the row and branches on its state: complete
-- (response_status set: compare idempotency.fingerprint, then replay), or in flight
-- (idempotency.in_flight.response, or Takeover once idempotency.in_flight.lock_timeout passed).
-- params: account_id, idempotency_key
SELECT operation, fingerprint, request_body, fence, locked_at, recovery_point, downstream_keys, response_status, response_headers, response_body, created_at, request_target
FROM idempotency_keys
WHERE account_id = $1 AND idempotency_key = $2;

-- name: ClaimLookup :one
-- Claim, and for a loser the row it lost to, in one round trip (the Claim insert, then Lookup's columns).
-- won true: this caller holds token 1, the other columns are NULL. won false: the key exists and the
-- columns are its row, or NULL when it was committed after this statement began (read it with Lookup).
-- idempotency.claim.mechanism unique-constraint; idempotency.scope account.
-- params: account_id, idempotency_key, operation, fingerprint, request_body, request_target, now, recovery_point, now, account_id, idempotency_key
WITH claimed AS (
INSERT INTO idempotency_keys (account_id, idempotency_key, operation, fingerprint, request_body, request_target, fence, locked_at, recovery_point, downstream_keys, created_at)
VALUES ($1, $2, $3, $4, $5, $6, 1, $7::bigint, $8, '{}', $9::bigint)
ON CONFLICT (account_id, idempotency_key) DO NOTHING
RETURNING fence)
SELECT EXISTS (SELECT 1 FROM claimed) AS won, k.operation, k.fingerprint, k.request_body, k.fence, k.locked_at, k.recovery_point, k.downstream_keys, k.response_status, k.response_headers, k.response_body, k.created_at, k.request_target
FROM (SELECT 1) AS one
LEFT JOIN idempotency_keys AS k ON k.account_id = $10 AND k.idempotency_key = $11;

-- name: ClaimLookupBatch :many
-- ClaimLookup for several keys in one statement, one round trip and one commit: the claims that arrive while
-- another is in flight travel together. Each parameter is an array with one element per key, sorted by the key
-- columns so that batches claiming the same keys lock them in one order. One row per key, in that order (ord from 1),
-- with won and the row it lost to as ClaimLookup returns them.
-- idempotency.claim.mechanism unique-constraint; idempotency.scope account.
-- params: batch_account_id, batch_idempotency_key, batch_operation, batch_fingerprint, batch_request_body, batch_request_target, batch_recovery_point, batch_now
WITH input AS (
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bytea[], $6::text[], $7::text[], $8::bigint[]) WITH ORDINALITY AS i(account_id, idempotency_key, operation, fingerprint, request_body, request_target, recovery_point, now, ord)
), claimed AS (
INSERT INTO idempotency_keys (account_id, idempotency_key, operation, fingerprint, request_body, request_target, fence, locked_at, recovery_point, downstream_keys, created_at)
SELECT i.account_id, i.idempotency_key, i.operation, i.fingerprint, i.request_body, i.request_target, 1, i.now, i.recovery_point, '{}', i.now
FROM input AS i
ORDER BY i.ord
ON CONFLICT (account_id, idempotency_key) DO NOTHING
RETURNING account_id, idempotency_key)
SELECT i.ord, c.idempotency_key IS NOT NULL AS won, k.operation, k.fingerprint, k.request_body, k.fence, k.locked_at, k.recovery_point, k.downstream_keys, k.response_status, k.response_headers, k.response_body, k.created_at, k.request_target
FROM input AS i
LEFT JOIN claimed AS c ON c.account_id = i.account_id AND c.idempotency_key = i.idempotency_key
LEFT JOIN LATERAL (
  SELECT * FROM idempotency_keys AS k
  WHERE c.idempotency_key IS NULL AND k.account_id = i.account_id AND k.idempotency_key = i.idempotency_key
  LIMIT 1) AS k ON true
ORDER BY i.ord;

-- name: ClaimBatch :many
-- Claim for several keys in one statement, one round trip and one commit: the claims that arrive while another
-- is in flight travel together. Each parameter is an array with one element per key, sorted by the key columns
-- so that batches claiming the same keys lock them in one order. Returns the keys this caller won, token 1 each;
-- a key it did not return exists already (read it with Lookup).
-- idempotency.claim.mechanism unique-constraint; idempotency.scope account.
-- params: batch_account_id, batch_idempotency_key, batch_operation, batch_fingerprint, batch_request_body, batch_request_target, batch_recovery_point, batch_now
WITH input AS (
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bytea[], $6::text[], $7::text[], $8::bigint[]) WITH ORDINALITY AS i(account_id, idempotency_key, operation, fingerprint, request_body, request_target, recovery_point, now, ord)
)
INSERT INTO idempotency_keys (account_id, idempotency_key, operation, fingerprint, request_body, request_target, fence, locked_at, recovery_point, downstream_keys, created_at)
SELECT i.account_id, i.idempotency_key, i.operation, i.fingerprint, i.request_body, i.request_target, 1, i.now, i.recovery_point, '{}', i.now
FROM input AS i
ORDER BY i.ord
ON CONFLICT (account_id, idempotency_key) DO NOTHING
RETURNING account_id, idempotency_key;

-- name: Takeover :execrows
-- Take over an abandoned claim: only while it is in flight, its lease older than idempotency.in_flight.lock_timeout (1m),
-- and still under the token the caller read (so of two takers exactly one wins). The new token is that token + 1.
-- idempotency.in_flight.takeover conditional-update.
-- params: now, account_id, idempotency_key, fence, now
UPDATE idempotency_keys
SET fence = fence + 1, locked_at = $1::bigint
WHERE account_id = $2 AND idempotency_key = $3
  AND fence = $4::bigint AND response_status IS NULL
  AND locked_at <= $5::bigint - 60000000;

-- name: Checkpoint :execrows
-- Record a recovery point (endpoints[].recovery_points) and the downstream keys chosen for
-- external calls (endpoints[].external_calls), renewing the lease. Fenced: 0 rows means
-- another worker took the key over and this one must stop.
-- params: recovery_point, downstream_keys, now, account_id, idempotency_key, fence
UPDATE idempotency_keys
SET recovery_point = $1, downstream_keys = $2, locked_at = $3::bigint
WHERE account_id = $4 AND idempotency_key = $5
  AND fence = $6::bigint AND response_status IS NULL;

-- name: Complete :execrows
-- Store the response verbatim (idempotency.stored_response verbatim, idempotency.stored_failures replay)
-- and end the lease. Fenced: 0 rows means this worker lost the key and its response is not stored.
-- params: response_status, response_headers, response_body, recovery_point, now, account_id, idempotency_key, fence
UPDATE idempotency_keys
SET response_status = $1::integer, response_headers = $2, response_body = $3,
    recovery_point = $4, locked_at = NULL, completed_at = $5::bigint
WHERE account_id = $6 AND idempotency_key = $7
  AND fence = $8::bigint AND response_status IS NULL;

-- name: CheckpointOrAbort :one
-- Checkpoint, sent in one pipeline after the handler's own writes so that both commit together (endpoints[].recovery_points).
-- Fenced like Checkpoint, but a lost fence fails the statement (division by zero, SQLSTATE 22012) so that the
-- pipeline's transaction, the handler's writes with it, rolls back instead of committing without the key.
-- params: recovery_point, downstream_keys, now, account_id, idempotency_key, fence
WITH fenced AS (
UPDATE idempotency_keys
SET recovery_point = $1, downstream_keys = $2, locked_at = $3::bigint
WHERE account_id = $4 AND idempotency_key = $5
  AND fence = $6::bigint AND response_status IS NULL
RETURNING fence)
SELECT 1 / count(*) AS held FROM fenced;

-- name: CompleteOrAbort :one
-- Complete, sent in one pipeline after the handler's own writes so that both commit together (idempotency.stored_response verbatim).
-- Fenced like Complete, but a lost fence fails the statement (division by zero, SQLSTATE 22012) so that the
-- pipeline's transaction, the handler's writes with it, rolls back instead of committing without the key.
-- params: response_status, response_headers, response_body, recovery_point, now, account_id, idempotency_key, fence
WITH fenced AS (
UPDATE idempotency_keys
SET response_status = $1::integer, response_headers = $2, response_body = $3,
    recovery_point = $4, locked_at = NULL, completed_at = $5::bigint
WHERE account_id = $6 AND idempotency_key = $7
  AND fence = $8::bigint AND response_status IS NULL
RETURNING fence)
SELECT 1 / count(*) AS held FROM fenced;

-- name: Release :execrows
-- End the lease without a stored response, keeping the recovery point, so the next retry
-- takes over at once and resumes (idempotency.stored_failures reattempt; a handler that gave up). Fenced.
-- params: account_id, idempotency_key, fence
UPDATE idempotency_keys
SET locked_at = 0
WHERE account_id = $1 AND idempotency_key = $2
  AND fence = $3::bigint AND response_status IS NULL;

-- name: Expire :execrows
-- Forget a completed key older than idempotency.replay_window (24h), so its reuse is a new request
-- (idempotency.after_window new-request). Matches the token read, so a fresh claim is never deleted.
-- params: account_id, idempotency_key, fence, now
DELETE FROM idempotency_keys
WHERE account_id = $1 AND idempotency_key = $2
  AND fence = $3::bigint AND response_status IS NOT NULL
  AND created_at <= $4::bigint - 86400000000;

-- name: Reap :execrows
-- Delete keys older than idempotency.reaper_after (72h), at most :limit per run; run it until it deletes none.
-- idempotency.recovery.reaper true.
-- params: now, limit
DELETE FROM idempotency_keys
WHERE (account_id, idempotency_key) IN (
  SELECT account_id, idempotency_key FROM idempotency_keys
  WHERE created_at <= $1::bigint - 259200000000
  ORDER BY created_at
  LIMIT $2::bigint);

-- name: Stale :many
-- Abandoned in-flight keys, lease older than idempotency.in_flight.lock_timeout (1m), oldest first,
-- for the completer (idempotency.recovery.completer true) to take over and finish.
-- params: now, limit
SELECT account_id, idempotency_key, operation, fence, recovery_point
FROM idempotency_keys
WHERE response_status IS NULL AND locked_at <= $1::bigint - 60000000
ORDER BY locked_at
LIMIT $2::bigint;
