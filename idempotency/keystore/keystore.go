// Package keystore is the interface between the idempotency middleware
// and the store that keeps its keys, as database/sql/driver is between
// database/sql and a driver: a store implements Store with the types
// here, and the middleware calls it. A service never needs this package:
// it opens a store (stores.Open, or idempotency.NewMemoryStore in unit
// tests) and hands it to idempotency.New.
//
// It imports nothing of the module, so a store depends only on it, and
// the middleware's API does not carry a store's.
package keystore

import (
	"context"
	"database/sql"
	"time"
)

// Key identifies one idempotency key: the caller's account (empty with
// scope: global) and the key the caller sent.
type Key struct {
	Account string
	Key     string
}

// NewClaim is what the claim insert records.
type NewClaim struct {
	Operation   string
	Fingerprint string
	RequestBody []byte
	// RequestTarget is the request's path and query as it arrived
	// (URL.RequestURI), so the completer can rebuild a request whose path
	// has parameters.
	RequestTarget string
	RecoveryPoint string
}

// Record is a key's stored row, as Lookup reads it.
type Record struct {
	Operation      string
	Fingerprint    string
	RequestBody    []byte
	Fence          int64
	LockedAt       time.Time // zero once complete
	RecoveryPoint  string
	DownstreamKeys map[string]string
	// Status is 0 while the key is in flight.
	Status    int
	Headers   map[string][]string
	Body      []byte
	CreatedAt time.Time
	// RequestTarget is NewClaim's, or "" in a row claimed before the
	// store had the column: the completer then cannot rebuild a request
	// whose path has parameters.
	RequestTarget string
}

// Complete reports whether the record holds a stored response.
func (r *Record) Complete() bool { return r.Status != 0 }

// Response is a stored response.
type Response struct {
	Status  int
	Headers map[string][]string
	Body    []byte
}

// StaleKey is an abandoned in-flight key, for the completer.
type StaleKey struct {
	Key
	Operation     string
	Fence         int64
	RecoveryPoint string
}

// Store runs the statements of `retryspec storage`. Every method after
// Claim is fenced: it takes the token the claim or takeover returned and
// reports ok=false, changing nothing, when that token is no longer current,
// so a worker whose lease was taken over cannot overwrite its successor.
//
// Methods that take a *sql.Tx run inside it when it is not nil, so a
// handler's own writes and the recovery point commit together. A store
// without transactions (the in-memory one) is passed nil.
//
// A store that is also a ClaimLookuper or a WriteCommitter saves round
// trips: the middleware then claims or commits through those methods. One
// that can run without durable commits says so as an AsyncCommitReporter.
type Store interface {
	// Claim inserts the key in flight with token 1; won is false when the
	// key already exists (the unique constraint decided).
	Claim(ctx context.Context, k Key, c NewClaim, now time.Time) (won bool, err error)
	// Lookup reads the key's row, or nil when there is none.
	Lookup(ctx context.Context, k Key) (*Record, error)
	// Takeover moves an abandoned claim (lease older than the contract's
	// lock_timeout) from token fence to fence+1.
	Takeover(ctx context.Context, k Key, fence int64, now time.Time) (ok bool, err error)
	// Checkpoint records the recovery point a phase reached and the
	// downstream keys chosen so far, and renews the lease.
	Checkpoint(ctx context.Context, tx *sql.Tx, k Key, fence int64, recoveryPoint string, downstream map[string]string, now time.Time) (ok bool, err error)
	// Complete stores the response and ends the lease.
	Complete(ctx context.Context, tx *sql.Tx, k Key, fence int64, r Response, recoveryPoint string, now time.Time) (ok bool, err error)
	// Release ends the lease without a response, so the next retry takes
	// over at once and resumes.
	Release(ctx context.Context, k Key, fence int64) (ok bool, err error)
	// Expire deletes a completed key older than the replay window.
	Expire(ctx context.Context, k Key, fence int64, now time.Time) (ok bool, err error)
	// Reap deletes up to limit keys older than the reaper horizon.
	Reap(ctx context.Context, now time.Time, limit int) (int64, error)
	// Stale lists up to limit abandoned in-flight keys, oldest first.
	Stale(ctx context.Context, now time.Time, limit int) ([]StaleKey, error)
	// Begin starts a transaction for a handler's phase; nil (and no
	// error) for stores without transactions.
	Begin(ctx context.Context) (*sql.Tx, error)
}

// ClaimLookuper is a Store that can claim a key and, when the claim
// loses, return the row it lost to in the same round trip, so a replay
// costs one statement. rec may be nil after a lost claim (the row was too
// new to be read with it); the middleware then calls Lookup.
type ClaimLookuper interface {
	ClaimLookup(ctx context.Context, k Key, c NewClaim, now time.Time) (won bool, rec *Record, err error)
}

// Write is one of a handler's own statements, in its database's SQL and
// placeholders (idempotency.Write is this type).
type Write struct {
	SQL  string
	Args []any
}

// WriteCommitter is a Store that commits a handler's writes together with
// the fenced Checkpoint or Complete itself, in as few round trips as its
// driver allows (stores.SQLStore on PostgreSQL through pgx: one pipeline,
// one transaction). ok is false, and nothing committed, when the fence was
// lost.
type WriteCommitter interface {
	CheckpointWrites(ctx context.Context, k Key, fence int64, recoveryPoint string, downstream map[string]string, now time.Time, writes []Write) (ok bool, err error)
	CompleteWrites(ctx context.Context, k Key, fence int64, r Response, recoveryPoint string, now time.Time, writes []Write) (ok bool, err error)
}

// AsyncCommitReporter is a Store that can acknowledge commits before they
// are durable. AsyncCommit names the server setting that does so, or is ""
// when commits are durable; the middleware logs and counts a store that
// runs that way (alerting.AsyncCommitStarts), since a database crash can
// then lose a recovery point and the retry repeat an external effect.
type AsyncCommitReporter interface {
	AsyncCommit() string
}
