package stores

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/idempotency/internal/batch"
	"github.com/retryspec/retryspec/idempotency/internal/native"
	"github.com/retryspec/retryspec/idempotency/keystore"
	"github.com/retryspec/retryspec/storage"
)

// SQLStore is the keystore.Store Open returns: it runs the statements
// `retryspec storage` generates for its dialect on a database/sql handle.
// PostgreSQL goes through pgx v5's database/sql driver, MySQL and MariaDB
// through go-sql-driver/mysql, SQLite through modernc.org/sqlite (pure
// Go); on PostgreSQL it runs the statements of a request's path on pgx's
// pool, batching concurrent claims and writes (docs/server.md, "Under
// load"). It is also a keystore.ClaimLookuper and a
// keystore.WriteCommitter, which the middleware uses to save round trips,
// and a wrapper embedding it keeps them.
type SQLStore struct {
	db          *sql.DB
	schema      *storage.Schema
	stmts       map[storage.StatementName]storage.Statement
	native      native.Client              // nil: database/sql only
	asyncCommit string                     // storeOptions.AsyncCommit
	claims      *batch.Batcher[*claimCall] // nil: each claim is its own statement
	writes      *batch.Batcher[*writeCall] // nil: each pipeline is its own round trip
	mergeWrites bool                       // a write batch may commit as one transaction (writebatch.go)
	counts      sqlCounts
}

// The middleware finds the optional interfaces by type assertion, so a
// method whose signature drifted would silently cost a round trip or an
// alert: here it is a compile error instead.
var (
	_ keystore.Store               = (*SQLStore)(nil)
	_ keystore.ClaimLookuper       = (*SQLStore)(nil)
	_ keystore.WriteCommitter      = (*SQLStore)(nil)
	_ keystore.AsyncCommitReporter = (*SQLStore)(nil)
)

// sqlCounts are the batchers' figures, which Stats reports.
type sqlCounts struct {
	// batches and batchFailures count the ClaimBatch and ClaimLookupBatch
	// statements sent and those that failed (their keys then claimed one
	// by one), lookupBatches the ClaimLookupBatch ones; writeBatches the
	// batches of several pipelines (one round trip each, two when a
	// merged attempt was rolled back), mergedBatches those that committed
	// as one transaction; claimTrips and writeTrips every round trip of
	// the two batchers.
	batches, batchFailures, lookupBatches, writeBatches, mergedBatches, claimTrips, writeTrips atomic.Int64
	// claimLoss is the recent share of lost claims, in 1/1024
	// (claimbatch.go); writeFailures the recent share of write batches
	// with a failing pipeline (writebatch.go).
	claimLoss, writeFailures atomic.Int64
}

// storeOptions configure an SQLStore when it is made; nothing changes them
// later. The zero value runs every statement on the *sql.DB.
type storeOptions struct {
	// Migrate creates the key table or the columns it lacks; without it
	// either is an error naming what is missing.
	Migrate bool
	// AsyncCommit is the server setting under which commits are
	// acknowledged before they are flushed ("" when durable), which the
	// middleware logs and counts.
	AsyncCommit string
	// Native is the database's own client and what it batches: openPostgres
	// sets pgx's pool.
	Native *native.Config
}

// prepareStore checks that db holds the key table with every column the
// contract's statements use (a missing one is an error naming it and the
// fix), then returns a store running them.
func prepareStore(ctx context.Context, db *sql.DB, dialect storage.Dialect, c *contract.Contract, opts storeOptions) (*SQLStore, error) {
	schema, err := storage.Generate(c, dialect)
	if err != nil {
		return nil, err
	}
	s := newSQLStore(db, schema, opts)
	if err := db.PingContext(ctx); err != nil {
		return nil, fmt.Errorf("idempotency: cannot reach the %s store: %w", dialect, err)
	}
	if opts.Migrate {
		for _, ddl := range schema.DDL {
			if _, err := db.ExecContext(ctx, ddl); err != nil {
				return nil, fmt.Errorf("idempotency: creating the key table: %w", err)
			}
		}
		if err := s.upgrade(ctx); err != nil {
			return nil, err
		}
	}
	if err := s.checkSchema(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// newSQLStore sets up the store's statements and batchers; each batcher
// is on only when the client can send its batches.
func newSQLStore(db *sql.DB, schema *storage.Schema, opts storeOptions) *SQLStore {
	s := &SQLStore{db: db, schema: schema, stmts: map[storage.StatementName]storage.Statement{}, asyncCommit: opts.AsyncCommit}
	for _, st := range schema.Statements {
		s.stmts[st.Name] = st
	}
	n := opts.Native
	if n == nil || n.Client == nil {
		return s
	}
	s.native = n.Client
	_, querier := n.Client.(native.Querier)
	if _, ok := s.stmts[storage.ClaimBatch]; ok && querier && n.BatchClaims {
		s.claims = s.newClaimBatcher()
	}
	if _, ok := n.Client.(native.Pipeliner); ok && n.BatchWrites {
		s.writes = s.newWriteBatcher()
		_, merger := n.Client.(native.Merger)
		s.mergeWrites = merger && n.MergeWrites
	}
	return s
}

// AsyncCommit is the server setting under which commits are acknowledged
// before they are flushed, which Open accepted by name in the URL
// (AcceptAsyncCommit); "" when commits are durable.
func (s *SQLStore) AsyncCommit() string { return s.asyncCommit }

// Schema is the generated schema the store runs.
func (s *SQLStore) Schema() *storage.Schema { return s.schema }

// DB is the database handle, for the service's own tables.
func (s *SQLStore) DB() *sql.DB { return s.db }

// upgrade adds the columns of schema.Upgrades that a key table created by
// an earlier release lacks (migrate only).
func (s *SQLStore) upgrade(ctx context.Context) error {
	for _, u := range s.schema.Upgrades {
		if s.probe(ctx, u.Column) == nil {
			continue
		}
		if _, err := s.db.ExecContext(ctx, u.SQL); err != nil {
			return fmt.Errorf("idempotency: adding the column %s to the key table: %w", u.Column, err)
		}
	}
	return nil
}

// probe selects cols from the key table, reading no row.
func (s *SQLStore) probe(ctx context.Context, cols string) error {
	rows, err := s.db.QueryContext(ctx, "SELECT "+cols+" FROM "+storage.Table+" WHERE 1 = 0")
	if err != nil {
		return err
	}
	return rows.Close()
}

// checkSchema selects every column, then each alone to name the missing one.
func (s *SQLStore) checkSchema(ctx context.Context) error {
	fix := fmt.Sprintf("create it from `retryspec storage --dialect %s`", s.schema.Dialect)
	if s.probe(ctx, strings.Join(s.schema.Columns, ", ")) == nil {
		return nil
	}
	if err := s.probe(ctx, "1"); err != nil {
		return fmt.Errorf("idempotency: the table %s is missing or unreadable (%v); %s", storage.Table, err, fix)
	}
	for _, col := range s.schema.Columns {
		if err := s.probe(ctx, col); err != nil {
			for _, u := range s.schema.Upgrades {
				if u.Column == col {
					// A table from an earlier release: one statement fixes it.
					return fmt.Errorf("idempotency: the table %s has no column %s, added after it was created; run %s (or open the store with migrate)", storage.Table, col, u.SQL)
				}
			}
			return fmt.Errorf("idempotency: the table %s has no column %s (%v); %s", storage.Table, col, err, fix)
		}
	}
	return fmt.Errorf("idempotency: the table %s does not have the shape the contract needs; %s", storage.Table, fix)
}

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

func (s *SQLStore) on(tx *sql.Tx) execer {
	if tx != nil {
		return tx
	}
	return s.db
}

// param is one of a statement's named values. A statement's values are a
// slice, not a map: the slice stays on the stack, and a few string
// comparisons find each placeholder's value. A value no placeholder names
// (account_id with scope: global) is not sent.
type param struct {
	name string
	v    any
}

// args orders the named values as the statement's placeholders.
func (s *SQLStore) args(name storage.StatementName, vals []param) (storage.Statement, []any) {
	st := s.stmts[name]
	out := make([]any, len(st.Params))
next:
	for i, p := range st.Params {
		for _, v := range vals {
			if v.name == p {
				out[i] = v.v
				continue next
			}
		}
		panic("idempotency: statement " + name.String() + " needs parameter " + p) // a bug in this file, not input
	}
	return st, out
}

func (s *SQLStore) execRows(ctx context.Context, tx *sql.Tx, name storage.StatementName, vals []param) (int64, error) {
	st, args := s.args(name, vals)
	if tx == nil && s.native != nil {
		n, err := s.native.Exec(ctx, st.SQL, args)
		if err != nil {
			return 0, fmt.Errorf("idempotency: %s: %w", name, err)
		}
		return n, nil
	}
	res, err := s.on(tx).ExecContext(ctx, st.SQL, args...)
	if err != nil {
		return 0, fmt.Errorf("idempotency: %s: %w", name, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("idempotency: %s: %w", name, err)
	}
	return n, nil
}

// queryRow runs a statement outside any transaction, on the native client
// when there is one.
func (s *SQLStore) queryRow(ctx context.Context, query string, args []any, dest ...any) error {
	if s.native != nil {
		return s.native.QueryRow(ctx, query, args, dest...)
	}
	return s.db.QueryRowContext(ctx, query, args...).Scan(dest...)
}

func (s *SQLStore) Claim(ctx context.Context, k keystore.Key, c keystore.NewClaim, now time.Time) (bool, error) {
	vals := []param{{"idempotency_key", k.Key}, {"account_id", k.Account}, {"operation", c.Operation}, {"fingerprint", c.Fingerprint}, {"request_body", nonNil(c.RequestBody)}, {"request_target", c.RequestTarget}, {"now", micros(now)}, {"recovery_point", c.RecoveryPoint}}
	st := s.stmts[storage.Claim]
	if st.Kind == storage.KindExecRows {
		n, err := s.execRows(ctx, nil, storage.Claim, vals)
		return n == 1, err
	}
	_, args := s.args(storage.Claim, vals)
	var fence int64
	err := s.queryRow(ctx, st.SQL, args, &fence)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("idempotency: Claim: %w", err)
	}
	return true, nil
}

func (s *SQLStore) Lookup(ctx context.Context, k keystore.Key) (*keystore.Record, error) {
	st, args := s.args(storage.Lookup, []param{{"idempotency_key", k.Key}, {"account_id", k.Account}})
	var r rowScan
	err := s.queryRow(ctx, st.SQL, args, r.dest()...)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("idempotency: Lookup: %w", err)
	}
	return r.record(storage.Lookup)
}

// ClaimLookup claims the key and, when it loses, returns the row it lost
// to (nil when the row is too new for the statement: read it with
// Lookup), in one statement on PostgreSQL, where concurrent claims share
// one (claimbatch.go); elsewhere it runs Claim, then Lookup.
func (s *SQLStore) ClaimLookup(ctx context.Context, k keystore.Key, c keystore.NewClaim, now time.Time) (won bool, rec *keystore.Record, err error) {
	if s.claims != nil {
		return s.claimLookupBatched(ctx, k, c, now)
	}
	return s.claimLookupOne(ctx, k, c, now)
}

func (s *SQLStore) claimLookupOne(ctx context.Context, k keystore.Key, c keystore.NewClaim, now time.Time) (won bool, rec *keystore.Record, err error) {
	st, ok := s.stmts[storage.ClaimLookup]
	if !ok {
		if won, err = s.Claim(ctx, k, c, now); err != nil || won {
			return won, nil, err
		}
		rec, err = s.Lookup(ctx, k)
		return false, rec, err
	}
	_, args := s.args(storage.ClaimLookup, []param{{"idempotency_key", k.Key}, {"account_id", k.Account}, {"operation", c.Operation}, {"fingerprint", c.Fingerprint}, {"request_body", nonNil(c.RequestBody)}, {"request_target", c.RequestTarget}, {"now", micros(now)}, {"recovery_point", c.RecoveryPoint}})
	var r rowScan
	if err := s.queryRow(ctx, st.SQL, args, append([]any{&won}, r.dest()...)...); err != nil {
		return false, nil, fmt.Errorf("idempotency: ClaimLookup: %w", err)
	}
	if won || !r.operation.Valid {
		return won, nil, nil
	}
	rec, err = r.record(storage.ClaimLookup)
	return false, rec, err
}

// rowScan receives Lookup's columns, each nullable: ClaimLookup returns
// them all NULL when it found no row.
type rowScan struct {
	operation, fingerprint, recoveryPoint, downstream, headers, target sql.NullString
	fence, lockedAt, status, createdAt                                 sql.NullInt64
	requestBody, responseBody                                          []byte
}

func (r *rowScan) dest() []any {
	return []any{&r.operation, &r.fingerprint, &r.requestBody, &r.fence,
		&r.lockedAt, &r.recoveryPoint, &r.downstream, &r.status, &r.headers, &r.responseBody, &r.createdAt, &r.target}
}

func (r *rowScan) record(stmt storage.StatementName) (*keystore.Record, error) {
	rec := &keystore.Record{
		Operation: r.operation.String, Fingerprint: r.fingerprint.String, RequestBody: r.requestBody,
		Fence: r.fence.Int64, LockedAt: fromMicros(r.lockedAt.Int64), RecoveryPoint: r.recoveryPoint.String,
		Status: int(r.status.Int64), Body: r.responseBody, CreatedAt: fromMicros(r.createdAt.Int64), RequestTarget: r.target.String,
		DownstreamKeys: map[string]string{},
	}
	if r.downstream.Valid && r.downstream.String != "" {
		if err := json.Unmarshal([]byte(r.downstream.String), &rec.DownstreamKeys); err != nil {
			return nil, fmt.Errorf("idempotency: %s: downstream_keys: %w", stmt, err)
		}
	}
	if r.headers.Valid && r.headers.String != "" {
		if err := json.Unmarshal([]byte(r.headers.String), &rec.Headers); err != nil {
			return nil, fmt.Errorf("idempotency: %s: response_headers: %w", stmt, err)
		}
	}
	if rec.Status != 0 && rec.Body == nil {
		rec.Body = []byte{}
	}
	return rec, nil
}

func (s *SQLStore) Takeover(ctx context.Context, k keystore.Key, fence int64, now time.Time) (bool, error) {
	n, err := s.execRows(ctx, nil, storage.Takeover, []param{{"idempotency_key", k.Key}, {"account_id", k.Account}, {"fence", fence}, {"now", micros(now)}})
	return n == 1, err
}

func (s *SQLStore) Checkpoint(ctx context.Context, tx *sql.Tx, k keystore.Key, fence int64, rp string, downstream map[string]string, now time.Time) (bool, error) {
	keys, err := json.Marshal(downstream)
	if err != nil {
		return false, err
	}
	n, err := s.execRows(ctx, tx, storage.Checkpoint, []param{{"idempotency_key", k.Key}, {"account_id", k.Account}, {"fence", fence}, {"now", micros(now)}, {"recovery_point", rp}, {"downstream_keys", string(keys)}})
	return n == 1, err
}

func (s *SQLStore) Complete(ctx context.Context, tx *sql.Tx, k keystore.Key, fence int64, r keystore.Response, rp string, now time.Time) (bool, error) {
	headers, err := marshalJSON(r.Headers)
	if err != nil {
		return false, err
	}
	n, err := s.execRows(ctx, tx, storage.Complete, []param{{"idempotency_key", k.Key}, {"account_id", k.Account}, {"fence", fence}, {"now", micros(now)}, {"recovery_point", rp}, {"response_status", r.Status}, {"response_headers", headers}, {"response_body", nonNil(r.Body)}})
	return n == 1, err
}

// CheckpointWrites commits the handler's writes with Checkpoint: in one
// pipeline ending in CheckpointOrAbort on the native client where the
// dialect has it, else in a transaction.
func (s *SQLStore) CheckpointWrites(ctx context.Context, k keystore.Key, fence int64, rp string, downstream map[string]string, now time.Time, writes []keystore.Write) (bool, error) {
	keys, err := json.Marshal(downstream)
	if err != nil {
		return false, err
	}
	return s.commitWrites(ctx, storage.Checkpoint, storage.CheckpointOrAbort, []param{{"idempotency_key", k.Key}, {"account_id", k.Account}, {"fence", fence}, {"now", micros(now)}, {"recovery_point", rp}, {"downstream_keys", string(keys)}}, writes)
}

// CompleteWrites commits the handler's writes with Complete, as
// CheckpointWrites does with Checkpoint.
func (s *SQLStore) CompleteWrites(ctx context.Context, k keystore.Key, fence int64, r keystore.Response, rp string, now time.Time, writes []keystore.Write) (bool, error) {
	headers, err := marshalJSON(r.Headers)
	if err != nil {
		return false, err
	}
	return s.commitWrites(ctx, storage.Complete, storage.CompleteOrAbort, []param{{"idempotency_key", k.Key}, {"account_id", k.Account}, {"fence", fence}, {"now", micros(now)}, {"recovery_point", rp}, {"response_status", r.Status}, {"response_headers", headers}, {"response_body", nonNil(r.Body)}}, writes)
}

// sqlStateDivisionByZero is how CheckpointOrAbort and CompleteOrAbort
// report a lost fence.
const sqlStateDivisionByZero = "22012"

func (s *SQLStore) commitWrites(ctx context.Context, name, orAbort storage.StatementName, vals []param, writes []keystore.Write) (bool, error) {
	if st, ok := s.stmts[orAbort]; ok && s.native != nil {
		_, args := s.args(st.Name, vals)
		stmts := make([]native.Stmt, len(writes)+1)
		for i, w := range writes {
			stmts[i] = native.Stmt(w)
		}
		stmts[len(writes)] = native.Stmt{SQL: st.SQL, Args: args}
		var failed int
		var err error
		if s.writes != nil {
			failed, err = s.pipelineBatched(ctx, stmts)
		} else {
			failed, err = s.native.Pipeline(ctx, stmts)
		}
		switch {
		case err == nil:
			return true, nil
		case failed == len(writes) && sqlState(err) == sqlStateDivisionByZero:
			return false, nil // the fence was lost: nothing committed
		case failed >= 0 && failed < len(writes):
			return false, fmt.Errorf("idempotency: the handler's write %d of %d: %w", failed+1, len(writes), err)
		}
		return false, fmt.Errorf("idempotency: %s: %w", st.Name, err)
	}
	tx, err := s.Begin(ctx)
	if err != nil {
		return false, err
	}
	for i, w := range writes {
		if _, err := tx.ExecContext(ctx, w.SQL, w.Args...); err != nil {
			rollback(tx)
			return false, fmt.Errorf("idempotency: the handler's write %d of %d: %w", i+1, len(writes), err)
		}
	}
	n, err := s.execRows(ctx, tx, name, vals)
	if err != nil || n != 1 {
		rollback(tx)
		return false, err
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("idempotency: %s: commit: %w", name, err)
	}
	return true, nil
}

// sqlState is the SQLSTATE code of a database error, or "" (pgx's
// *pgconn.PgError has the method).
func sqlState(err error) string {
	var e interface{ SQLState() string }
	if errors.As(err, &e) {
		return e.SQLState()
	}
	return ""
}

func (s *SQLStore) Release(ctx context.Context, k keystore.Key, fence int64) (bool, error) {
	n, err := s.execRows(ctx, nil, storage.Release, []param{{"idempotency_key", k.Key}, {"account_id", k.Account}, {"fence", fence}})
	return n == 1, err
}

func (s *SQLStore) Expire(ctx context.Context, k keystore.Key, fence int64, now time.Time) (bool, error) {
	n, err := s.execRows(ctx, nil, storage.Expire, []param{{"idempotency_key", k.Key}, {"account_id", k.Account}, {"fence", fence}, {"now", micros(now)}})
	return n == 1, err
}

func (s *SQLStore) Reap(ctx context.Context, now time.Time, limit int) (int64, error) {
	return s.execRows(ctx, nil, storage.Reap, []param{{"now", micros(now)}, {"limit", limit}})
}

func (s *SQLStore) Stale(ctx context.Context, now time.Time, limit int) ([]keystore.StaleKey, error) {
	st, args := s.args(storage.Stale, []param{{"now", micros(now)}, {"limit", limit}})
	rows, err := s.db.QueryContext(ctx, st.SQL, args...)
	if err != nil {
		return nil, fmt.Errorf("idempotency: Stale: %w", err)
	}
	defer rows.Close()
	var out []keystore.StaleKey
	for rows.Next() {
		var k keystore.StaleKey
		dst := []any{&k.Key.Key, &k.Operation, &k.Fence, &k.RecoveryPoint}
		if s.schema.Scoped {
			dst = append([]any{&k.Account}, dst...)
		}
		if err := rows.Scan(dst...); err != nil {
			return nil, fmt.Errorf("idempotency: Stale: %w", err)
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

func (s *SQLStore) Begin(ctx context.Context) (*sql.Tx, error) { return s.db.BeginTx(ctx, nil) }

// nonNil keeps an empty body from being stored as NULL.
func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

func marshalJSON(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}

func micros(t time.Time) int64 { return t.UnixMicro() }

func fromMicros(v int64) time.Time {
	if v == 0 {
		return time.Time{}
	}
	return time.UnixMicro(v).UTC()
}

func rollback(tx *sql.Tx) {
	if tx != nil {
		_ = tx.Rollback()
	}
}
