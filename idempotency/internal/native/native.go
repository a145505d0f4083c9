// Package native is what the SQL store asks of a database's own client
// when package stores gives it one (pgx's pool on PostgreSQL): the
// statements of a request's path without database/sql, and the batched
// forms the store's batchers send. Package stores implements them on pgx
// and runs them; neither the middleware, a service nor a custom store sees
// it.
package native

import "context"

// Stmt is one statement with its arguments, in the database's SQL and
// placeholders (a keystore.Write converts to it).
type Stmt struct {
	SQL  string
	Args []any
}

// Client runs the store's per-request statements instead of database/sql.
// Statements inside a handler's *sql.Tx still go through that transaction.
type Client interface {
	// QueryRow runs a statement returning at most one row into dest;
	// no row is sql.ErrNoRows.
	QueryRow(ctx context.Context, query string, args []any, dest ...any) error
	// Exec runs a statement and returns the number of rows it affected.
	Exec(ctx context.Context, query string, args []any) (int64, error)
	// Pipeline sends the statements in one round trip, to run as one
	// transaction: all commit or none does. On failure, failed is the
	// index of the statement that failed.
	Pipeline(ctx context.Context, stmts []Stmt) (failed int, err error)
}

// Querier is a Client that can also read several rows. With it, and a
// dialect that has ClaimBatch and ClaimLookupBatch (PostgreSQL), the store
// sends the claims that arrive while another is in flight as one
// statement.
type Querier interface {
	// QueryRows runs a statement and, for each row, scans it into dest
	// and calls each.
	QueryRows(ctx context.Context, query string, args []any, dest []any, each func() error) error
}

// Pipeliner is a Client that can send several pipelines in one round trip
// on one connection, each still its own transaction: PostgreSQL's extended
// protocol ends each with its own Sync, and an error skips only to the end
// of its own pipeline. With it, the store sends the handlers' writes and
// fenced statements that arrive while another such pipeline is in flight
// together.
type Pipeliner interface {
	// Pipelines sends each group of statements as one transaction, all
	// groups in one round trip, and sets out[i] to group i's outcome as
	// Pipeline reports it: Failed is the index of the statement that
	// failed, or -1 (Err then a failed commit, or nil). A group that
	// failed changes nothing and leaves the others alone.
	Pipelines(ctx context.Context, groups [][]Stmt, out []Result)
}

// Merger is a Pipeliner that can also send several groups as one
// transaction. With it, the store commits the pipelines of a batch
// together.
type Merger interface {
	// Merged sends every group's statements in one round trip as one
	// transaction, which commits only if every statement succeeds (nil).
	// With an error, rolledBack reports that nothing of it committed (it
	// was not sent, or the server rolled it back); without it the outcome
	// is unknown, as when the connection broke.
	Merged(ctx context.Context, groups [][]Stmt) (rolledBack bool, err error)
}

// Result is one group's outcome in Pipeliner.Pipelines.
type Result struct {
	Failed int
	Err    error
}

// PoolStats are a client's connection pool figures, as pgxpool.Stat
// reports them.
type PoolStats struct {
	MaxConns, TotalConns, IdleConns, AcquiredConns int32
	// Acquires counts the connections taken from the pool, EmptyAcquires
	// those that waited because none was idle.
	Acquires, EmptyAcquires int64
}

// Pool is a Client with a connection pool whose figures it reports.
type Pool interface {
	PoolStats() PoolStats
}

// Config is the client a store runs on and what it batches, set once
// when the store is made.
type Config struct {
	Client Client
	// BatchClaims sends the claims that arrive while one is in flight as
	// one statement; it needs a Querier and a dialect with ClaimBatch.
	BatchClaims bool
	// BatchWrites sends the write pipelines that arrive while one is in
	// flight together in one round trip; it needs a Pipeliner.
	BatchWrites bool
	// MergeWrites commits such a batch as one transaction; it needs a
	// Merger and BatchWrites.
	MergeWrites bool
}
