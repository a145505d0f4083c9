// Package stores is the idempotency middleware's SQL store: Open connects
// an SQLStore from a URL, with the database driver each dialect needs:
// PostgreSQL through pgx v5, MySQL and MariaDB through
// go-sql-driver/mysql, SQLite through modernc.org/sqlite (pure Go, no
// cgo). It is apart from package idempotency so a service links only this
// package's drivers when it asks for them, and so the middleware's API
// does not carry the store's. It implements keystore.Store and imports
// neither idempotency nor anything that does; its batching and
// native-client hooks are in idempotency/internal.
package stores

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib" // registers "pgx"
	_ "modernc.org/sqlite"           // registers "sqlite"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/idempotency/internal/native"
	"github.com/retryspec/retryspec/storage"
)

// Open connects to the store named by rawURL and checks its key table:
//
//	sqlite:FILE (or sqlite://FILE)     a SQLite file, created when missing
//	postgres://user:pass@host:port/db  PostgreSQL (postgresql:// too)
//	mysql://user:pass@host:port/db     MySQL or MariaDB
//
// c is the contract whose key table (names, column sizes) the store uses.
// With migrate, the key table is created when missing; without it, a
// missing table is an error (the table is then a migration of yours,
// applied from `retryspec storage`). The error names what is wrong (an
// unreachable server, a missing table or column); nothing is served until
// Open succeeds. ctx bounds all of it, the dial, the checks and the
// migration, and StartTimeout bounds it when ctx has no earlier deadline.
//
// Open refuses a server that acknowledges a commit before it is flushed
// to disk (PostgreSQL synchronous_commit = off or fsync = off; MySQL and
// MariaDB innodb_flush_log_at_trx_commit other than 1; SQLite synchronous
// below FULL): a crash of the database can then lose recovery points and
// responses it acknowledged, and the retry repeats an external effect.
// Add AcceptAsyncCommit=accept to the URL's query (as in
// postgres://...?async_commit=accept) to run on such a server anyway; the
// store then reports the setting (SQLStore.AsyncCommit), the middleware
// logs and counts it, and Open logs it at start either way.
//
// On PostgreSQL the store batches concurrent statements (docs/server.md,
// "Under load"); the URL's ClaimBatches, WriteBatches and MergedWrites
// parameters (on or off) override its choices.
func Open(ctx context.Context, rawURL string, c *contract.Contract, migrate bool) (*SQLStore, error) {
	// An unreachable host must be an error at start-up, not a hang; a
	// caller that gives up stops the dial, the checks and the migration.
	ctx, cancel := context.WithTimeout(ctx, StartTimeout)
	defer cancel()
	rawURL, params, err := ownParams(rawURL)
	if err != nil {
		return nil, err
	}
	b, driver, dsn, err := lookup(rawURL)
	if err != nil {
		return nil, err
	}
	var s *SQLStore
	if b.dialect == storage.Postgres {
		s, err = openPostgres(ctx, b, dsn, c, migrate, params)
	} else {
		s, err = openSQL(ctx, b, driver, dsn, c, migrate)
	}
	if err != nil {
		return nil, fmt.Errorf("%w (store %s)", err, redact(rawURL))
	}
	if err := checkCommits(s, b, params[AcceptAsyncCommit] == "accept"); err != nil {
		s.DB().Close()
		return nil, fmt.Errorf("%w (store %s)", err, redact(rawURL))
	}
	if setting := s.AsyncCommit(); setting != "" {
		slog.Warn("idempotency store accepts commits acknowledged before they are flushed (opted in by URL)",
			"dialect", b.dialect, "setting", setting, "store", redact(rawURL))
	} else {
		slog.Info("idempotency store commits are durable", "dialect", b.dialect, "store", redact(rawURL))
	}
	return s, nil
}

// openSQL opens a store on database/sql alone, with at most b.maxConns
// connections.
func openSQL(ctx context.Context, b backend, driver, dsn string, c *contract.Contract, migrate bool) (*SQLStore, error) {
	db, err := sql.Open(driver, dsn)
	if err != nil {
		return nil, fmt.Errorf("idempotency: opening the %s store: %w", b.dialect, err)
	}
	db.SetMaxOpenConns(b.maxConns)
	db.SetMaxIdleConns(b.maxConns)
	setting, err := reach(ctx, b, db)
	if err != nil {
		db.Close()
		return nil, err
	}
	s, err := prepareStore(ctx, db, b.dialect, c, storeOptions{Migrate: migrate, AsyncCommit: setting})
	if err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// reach checks that the server answers, then reads the setting under
// which it acknowledges a commit before flushing it: the store is made
// with it.
func reach(ctx context.Context, b backend, db *sql.DB) (setting string, err error) {
	if err := db.PingContext(ctx); err != nil {
		return "", fmt.Errorf("idempotency: cannot reach the %s store: %w", b.dialect, err)
	}
	if setting, err = b.unflushed(ctx, db); err != nil {
		return "", fmt.Errorf("idempotency: reading the server's commit settings: %w", err)
	}
	return setting, nil
}

// openPostgres opens a store whose requests run on pgx's pool (pgxNative)
// and whose other statements borrow the pool's connections through
// database/sql.
func openPostgres(ctx context.Context, b backend, dsn string, c *contract.Contract, migrate bool, params map[string]string) (*SQLStore, error) {
	pool, err := openPool(ctx, dsn, PoolSize, nil)
	if err != nil {
		return nil, fmt.Errorf("idempotency: opening the postgres store: %w", err)
	}
	// Merged write batches run on connections of their own, whose
	// lock_timeout is set when they connect (see MergedLockTimeout): no
	// statement per batch sets it.
	mergePool, err := openPool(ctx, dsn, mergePoolSize, map[string]string{"lock_timeout": MergedLockTimeout})
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("idempotency: opening the postgres store: %w", err)
	}
	// database/sql borrows the pool's connections (for a handler's
	// *sql.Tx, the schema check, the reaper); closing it closes both
	// pools.
	db := sql.OpenDB(poolConnector{stdlib.GetPoolConnector(pool), []*pgxpool.Pool{pool, mergePool}})
	db.SetMaxIdleConns(0) // idle connections belong to the pool
	db.SetMaxOpenConns(int(pool.Config().MaxConns))
	setting, err := reach(ctx, b, db)
	if err != nil {
		db.Close()
		return nil, err
	}
	async, err := asyncCommits(ctx, pool)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("idempotency: reading the server's commit settings: %w", err)
	}
	client := &native.Config{Client: pgxNative{pool, mergePool, &preparable{names: map[string]string{}}},
		BatchClaims: params[ClaimBatches] != "off",
		BatchWrites: params[WriteBatches] == "on" || async && params[WriteBatches] != "off",
		MergeWrites: params[MergedWrites] != "off"}
	s, err := prepareStore(ctx, db, storage.Postgres, c, storeOptions{Migrate: migrate, AsyncCommit: setting, Native: client})
	if err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// checkCommits refuses a store whose server acknowledges commits before
// they are flushed unless the URL accepted it.
func checkCommits(s *SQLStore, b backend, accept bool) error {
	if setting := s.AsyncCommit(); setting != "" && !accept {
		return fmt.Errorf("idempotency: the %s store acknowledges commits before they are flushed (%s): a database crash can lose "+
			"recovery points it acknowledged, and a retry then repeats an external effect; make commits durable, "+
			"or add %s=accept to the store URL to accept that risk", b.dialect, setting, AcceptAsyncCommit)
	}
	return nil
}

// backend is how a store of one dialect is reached: the URL schemes that
// name it, its database/sql driver and data source name, how many
// connections database/sql keeps, and the server setting under which a
// commit is acknowledged before it is flushed.
type backend struct {
	dialect storage.Dialect
	schemes []string
	dsn     func(rawURL string) (driver, dsn string, err error)
	// maxConns bounds database/sql's connections (PostgreSQL's are the
	// pool's, PoolSize).
	maxConns int
	// unflushed names that setting, or "" when commits are durable.
	unflushed func(ctx context.Context, db *sql.DB) (string, error)
}

// backends has a row for each dialect of storage.Dialects.
var backends = []backend{
	{dialect: storage.Postgres, schemes: []string{"postgres://", "postgresql://"}, dsn: postgresDSN, unflushed: postgresUnflushed},
	// Connections up to the concurrency a service sends, kept idle
	// between bursts rather than dialled again.
	{dialect: storage.MySQL, schemes: []string{"mysql://"}, dsn: mysqlDSN, maxConns: 64, unflushed: mysqlUnflushed},
	// One writer at a time is SQLite's model; a single connection
	// queues writers in Go instead of failing them with SQLITE_BUSY.
	{dialect: storage.SQLite, schemes: []string{"sqlite:"}, dsn: sqliteDSN, maxConns: 1, unflushed: sqliteUnflushed},
}

func postgresUnflushed(ctx context.Context, db *sql.DB) (string, error) {
	var syncCommit, fsync string
	if err := db.QueryRowContext(ctx, "SELECT current_setting('synchronous_commit'), current_setting('fsync')").Scan(&syncCommit, &fsync); err != nil {
		return "", err
	}
	var bad []string
	if syncCommit == "off" {
		bad = append(bad, "synchronous_commit = off")
	}
	if fsync == "off" {
		bad = append(bad, "fsync = off")
	}
	return strings.Join(bad, ", "), nil
}

func mysqlUnflushed(ctx context.Context, db *sql.DB) (string, error) {
	var flush string
	if err := db.QueryRowContext(ctx, "SELECT @@innodb_flush_log_at_trx_commit").Scan(&flush); err != nil {
		return "", err
	}
	if flush != "1" {
		return "innodb_flush_log_at_trx_commit = " + flush, nil
	}
	return "", nil
}

func sqliteUnflushed(ctx context.Context, db *sql.DB) (string, error) {
	var level int
	if err := db.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&level); err != nil {
		return "", err
	}
	if level < 2 {
		return fmt.Sprintf("synchronous = %d", level), nil
	}
	return "", nil
}

// The store URL's own query parameters, which Open removes before
// connecting (PostgreSQL refuses a connection that names a setting it
// does not know).
const (
	// AcceptAsyncCommit opts in, by name, to a server whose commits are
	// acknowledged before they are flushed; its only value is "accept".
	AcceptAsyncCommit = "async_commit"
	// ClaimBatches=off sends every claim alone on PostgreSQL, where the
	// claims that arrive while one is in flight otherwise go together.
	ClaimBatches = "claim_batches"
	// WriteBatches=on or off overrides whether concurrent write pipelines
	// share round trips on PostgreSQL, by default only when commits do
	// not wait for their WAL flush (synchronous_commit off).
	WriteBatches = "write_batches"
	// MergedWrites=off keeps each pipeline of a write batch its own
	// transaction, for handlers that depend on their own transaction's
	// now() or identity.
	MergedWrites = "merged_writes"
)

// ownParamValues are the store's own parameters and the values each
// takes, in the order they are checked.
var ownParamValues = []struct {
	name   string
	values []string
}{
	{AcceptAsyncCommit, []string{"accept"}},
	{ClaimBatches, []string{"on", "off"}},
	{WriteBatches, []string{"on", "off"}},
	{MergedWrites, []string{"on", "off"}},
}

// ownParams removes the store's own parameters from the URL and returns
// their values.
func ownParams(rawURL string) (string, map[string]string, error) {
	got := map[string]string{}
	i := strings.IndexByte(rawURL, '?')
	if i < 0 {
		return rawURL, got, nil
	}
	q, err := url.ParseQuery(rawURL[i+1:])
	if err != nil {
		return rawURL, got, nil
	}
	found := false
	for _, p := range ownParamValues {
		name, values := p.name, p.values
		if !q.Has(name) {
			continue
		}
		v := q.Get(name)
		if !slices.Contains(values, v) {
			allowed := "the only value is " + values[0]
			if len(values) > 1 {
				allowed = "the values are " + strings.Join(values, " and ")
			}
			return "", nil, fmt.Errorf("idempotency: %s=%q in the store URL: %s", name, v, allowed)
		}
		got[name], found = v, true
		q.Del(name)
	}
	if !found {
		return rawURL, got, nil
	}
	if len(q) == 0 {
		return rawURL[:i], got, nil
	}
	return rawURL[:i+1] + q.Encode(), got, nil
}

// asyncCommits reports whether a commit on the pool's connections returns
// without waiting for its WAL flush (synchronous_commit off, for the
// server or in the URL). Only then are concurrent write pipelines sent
// together on one connection (WriteBatches): the transactions of
// a batch commit one after another, and with synchronous commits each
// would wait for its own flush in turn, where transactions on separate
// connections share one (group commit).
func asyncCommits(ctx context.Context, pool *pgxpool.Pool) (bool, error) {
	var syncCommit string
	err := pool.QueryRow(ctx, "SELECT current_setting('synchronous_commit')").Scan(&syncCommit)
	return syncCommit == "off", err
}

// PoolSize is the PostgreSQL pool's size unless the URL sets
// pool_max_conns: pgxpool's default (the number of CPUs, at least 4) would
// queue 16 concurrent requests behind 4 connections.
const PoolSize = 64

// mergePoolSize is the size of the pool merged write batches run on: one
// is in flight at a time (idempotency's maxWritesInFlight), so two
// connections leave one spare. The pool connects on first use.
const mergePoolSize = 2

// openPool opens a pool of size connections unless the URL sets
// pool_max_conns, with params as each connection's settings.
func openPool(ctx context.Context, dsn string, size int32, params map[string]string) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	if u, err := url.Parse(dsn); err == nil && !u.Query().Has("pool_max_conns") {
		cfg.MaxConns = size
	}
	for k, v := range params {
		cfg.ConnConfig.RuntimeParams[k] = v
	}
	return pgxpool.NewWithConfig(ctx, cfg)
}

// poolConnector is pgx's database/sql connector over a pool, closing the
// pool when the *sql.DB is closed (database/sql calls Close on a connector
// that has it).
type poolConnector struct {
	driver.Connector
	pools []*pgxpool.Pool
}

func (c poolConnector) Close() error {
	for _, p := range c.pools {
		p.Close()
	}
	return nil
}

// pgxNative runs the store's per-request statements on pgx's pool: each
// is prepared once per connection (the extended protocol with pgx's
// statement cache), and Pipeline sends a handler's writes with the fenced
// write as one batch, which PostgreSQL runs as one implicit transaction.
type pgxNative struct {
	pool  *pgxpool.Pool
	merge *pgxpool.Pool // for Merged: connections with MergedLockTimeout
	prep  *preparable
}

func (p pgxNative) QueryRow(ctx context.Context, query string, args []any, dest ...any) error {
	err := p.pool.QueryRow(ctx, query, args...).Scan(dest...)
	if errors.Is(err, pgx.ErrNoRows) {
		return sql.ErrNoRows
	}
	return err
}

func (p pgxNative) QueryRows(ctx context.Context, query string, args []any, dest []any, each func() error) error {
	rows, err := p.pool.Query(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		if err := each(); err != nil {
			return err
		}
	}
	return rows.Err()
}

func (p pgxNative) Exec(ctx context.Context, query string, args []any) (int64, error) {
	tag, err := p.pool.Exec(ctx, query, args...)
	return tag.RowsAffected(), err
}

func (p pgxNative) Pipeline(ctx context.Context, stmts []native.Stmt) (int, error) {
	b := &pgx.Batch{}
	for _, w := range stmts {
		b.Queue(w.SQL, w.Args...)
	}
	br := p.pool.SendBatch(ctx, b)
	for i := range stmts {
		if _, err := br.Exec(); err != nil {
			_ = br.Close()
			return i, err
		}
	}
	return -1, br.Close()
}

// Pipelines sends each group as its own implicit transaction, ended by its
// own Sync, all of them in one write on one connection: PostgreSQL runs
// them in order, and an error skips only to the end of its group, so each
// group commits or rolls back alone. Every statement is prepared (on first
// use per connection) and encoded before anything is sent, so a group
// whose statement cannot be prepared or encoded fails without a byte of it
// reaching the server.
func (p pgxNative) Pipelines(ctx context.Context, groups [][]native.Stmt, out []native.Result) {
	pc, err := p.pool.Acquire(ctx)
	if err != nil {
		for i := range groups {
			out[i] = native.Result{Failed: -1, Err: err}
		}
		return
	}
	defer pc.Release()
	conn := pc.Conn()
	enc, done := encoders(groups)
	defer done()
	sent := p.encodeGroups(ctx, conn, groups, enc, out)
	if len(sent) == 0 {
		return
	}
	pl := conn.PgConn().StartPipeline(ctx)
	sendGroups(pl, groups, enc, sent)
	if err := pl.Flush(); err != nil {
		for _, i := range sent {
			out[i] = native.Result{Failed: -1, Err: err}
		}
		_ = pl.Close()
		return
	}
	stale := readGroups(pl, groups, sent, out)
	if err := pl.Close(); err != nil {
		return
	}
	for _, sql := range stale {
		_ = conn.Deallocate(ctx, p.prep.name(sql))
	}
}

// encodeGroups encodes every statement of groups into enc, in order, and
// returns the indexes of the groups that encoded whole. A group that did
// not gets its failure in out, and is not sent; the others' results are
// reset for readGroups.
func (p pgxNative) encodeGroups(ctx context.Context, conn *pgx.Conn, groups [][]native.Stmt, enc []encoded, out []native.Result) []int {
	sent := make([]int, 0, len(groups))
	k := 0
	for i, g := range groups {
		out[i] = native.Result{Failed: -1}
		ok := true
		for j, w := range g {
			if err := p.encode(ctx, conn, &enc[k+j], w); err != nil {
				out[i] = native.Result{Failed: j, Err: err}
				ok = false
				break
			}
		}
		if ok {
			sent = append(sent, i)
		}
		k += len(g)
	}
	return sent
}

// sendGroups queues the groups sent (indexes, ascending) on pl, each
// ended by its own Sync: its own implicit transaction.
func sendGroups(pl *pgconn.Pipeline, groups [][]native.Stmt, enc []encoded, sent []int) {
	k, next := 0, 0
	for i, g := range groups {
		if next < len(sent) && sent[next] == i {
			next++
			for j := range g {
				enc[k+j].send(pl)
			}
			pl.SendPipelineSync()
		}
		k += len(g)
	}
}

// readGroups reads the results of the groups sent, in order, into out,
// and returns the texts of the statements that failed because they were
// prepared before their table changed. When the connection breaks, the
// groups not read yet get its error: their outcome is unknown.
func readGroups(pl *pgconn.Pipeline, groups [][]native.Stmt, sent []int, out []native.Result) (stale []string) {
	for x, i := range sent {
		failed, err := readGroup(pl, len(groups[i]))
		out[i] = native.Result{Failed: failed, Err: err}
		if err == nil {
			continue
		}
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) {
			for _, rest := range sent[x+1:] {
				out[rest] = native.Result{Failed: -1, Err: err}
			}
			return stale
		}
		if failed >= 0 && preparedStale(pgErr) {
			stale = append(stale, groups[i][failed].SQL)
		}
	}
	return stale
}

// PoolStats reads the pool's figures for SQLStore.Stats.
func (p pgxNative) PoolStats() native.PoolStats {
	st := p.pool.Stat()
	return native.PoolStats{MaxConns: st.MaxConns(), TotalConns: st.TotalConns(), IdleConns: st.IdleConns(), AcquiredConns: st.AcquiredConns(),
		Acquires: st.AcquireCount(), EmptyAcquires: st.EmptyAcquireCount()}
}

// MergedLockTimeout is the lock_timeout of a merged transaction (Merged).
// Its groups come from unrelated requests, in no order of theirs, so two
// merged transactions can lock the same rows in opposite orders where the
// requests alone would not deadlock. Waiting longer than this for a lock
// ends the attempt (SQLSTATE 55P03) instead of waiting for the server's
// deadlock check (deadlock_timeout, 1 s by default), and the store then
// sends the groups as their own transactions, which wait as usual. A
// merged transaction holds its locks only while its one round trip runs,
// so another instance's batch normally releases them well within it.
const MergedLockTimeout = "20ms"

// Merged sends every group's statements in one round trip as ONE
// transaction, on a connection whose lock_timeout is MergedLockTimeout: it
// commits only if every statement succeeds. rolledBack reports, with an
// error, that nothing of it committed: a statement could not be prepared
// or encoded (nothing was sent), or the server reported an error and
// rolled the transaction back. Without rolledBack the outcome is unknown
// (the connection broke).
func (p pgxNative) Merged(ctx context.Context, groups [][]native.Stmt) (rolledBack bool, err error) {
	pc, err := p.merge.Acquire(ctx)
	if err != nil {
		return true, err
	}
	defer pc.Release()
	conn := pc.Conn()
	enc, done := encoders(groups)
	defer done()
	k := 0
	for _, g := range groups {
		for _, w := range g {
			if err := p.encode(ctx, conn, &enc[k], w); err != nil {
				return true, err
			}
			k++
		}
	}
	pl := conn.PgConn().StartPipeline(ctx)
	for i := range enc {
		enc[i].send(pl)
	}
	pl.SendPipelineSync()
	if err := pl.Flush(); err != nil {
		_ = pl.Close()
		return false, err
	}
	failed, err := readGroup(pl, len(enc))
	var pgErr *pgconn.PgError
	rolledBack = err != nil && errors.As(err, &pgErr)
	if cerr := pl.Close(); err == nil && cerr != nil {
		return false, cerr // the results were read, but the connection broke after them
	}
	if rolledBack && failed >= 0 && preparedStale(pgErr) {
		// Prepare it anew next time, as Pipelines does on its own
		// connections.
		_ = conn.Deallocate(ctx, p.prep.name(enc[failed].sql))
	}
	return rolledBack, err
}

// preparedStale reports the errors of a statement prepared before its
// table changed (say, a column added under it).
func preparedStale(err *pgconn.PgError) bool {
	return err.Code == sqlStateFeatureNotSupported || err.Code == sqlStateInvalidStatementName
}

// The SQLSTATE codes of preparedStale, as PostgreSQL's errcodes.txt names
// them.
const (
	sqlStateFeatureNotSupported  = "0A000" // "cached plan must not change result type"
	sqlStateInvalidStatementName = "26000"
)

// encode prepares w on conn on its first use there, unless the store has
// prepared enough statements, and encodes its arguments into e.
func (p pgxNative) encode(ctx context.Context, conn *pgx.Conn, e *encoded, w native.Stmt) error {
	e.sd, e.sql = nil, w.SQL
	if name := p.prep.name(w.SQL); name != "" {
		var err error
		if e.sd, err = conn.Prepare(ctx, name, w.SQL); err != nil {
			return err
		}
	}
	return e.eqb.Build(conn.TypeMap(), e.sd, w.Args)
}

// send queues the encoded statement on pl.
func (e *encoded) send(pl *pgconn.Pipeline) {
	if e.sd != nil {
		pl.SendQueryPrepared(e.sd.Name, e.eqb.ParamValues, e.eqb.ParamFormats, e.eqb.ResultFormats)
	} else {
		pl.SendQueryParams(e.sql, e.eqb.ParamValues, nil, e.eqb.ParamFormats, e.eqb.ResultFormats)
	}
}

// encoders returns one encoder per statement of groups from encodedPool,
// and the function that puts them back.
func encoders(groups [][]native.Stmt) ([]encoded, func()) {
	n := 0
	for _, g := range groups {
		n += len(g)
	}
	encp := encodedPool.Get().(*[]encoded)
	if cap(*encp) < n {
		*encp = append((*encp)[:cap(*encp)], make([]encoded, n-cap(*encp))...)
	}
	return (*encp)[:n], func() {
		for i := range *encp {
			e := &(*encp)[i]
			e.sd, e.sql = nil, "" // keep the builders' buffers, not the statements
		}
		encodedPool.Put(encp)
	}
}

// encoded is one statement of Pipelines, encoded before anything is sent.
type encoded struct {
	sd  *pgconn.StatementDescription // nil: sent unnamed
	sql string
	eqb pgx.ExtendedQueryBuilder
}

// encodedPool keeps Pipelines' encoders between round trips: each builder
// keeps its buffers (Build resets them), so encoding a batch allocates
// nothing once they have grown.
var encodedPool = sync.Pool{New: func() any { return new([]encoded) }}

// readGroup reads one group's results up to its Sync: the index of the
// statement that failed and its error, or -1 and nil, or -1 and the
// error of the group's commit. After an error pgconn skips the group's
// remaining statements, as the server does.
func readGroup(pl *pgconn.Pipeline, n int) (failed int, err error) {
	failed = -1
	for j := 0; j < n && err == nil; j++ {
		res, gerr := pl.GetResults()
		if gerr == nil {
			rr, ok := res.(*pgconn.ResultReader)
			if !ok {
				return j, fmt.Errorf("pipeline: statement %d: unexpected %T", j+1, res)
			}
			_, gerr = rr.Close()
		}
		if gerr != nil {
			failed, err = j, gerr
			var pgErr *pgconn.PgError
			if !errors.As(gerr, &pgErr) {
				return failed, err
			}
		}
	}
	for {
		res, gerr := pl.GetResults()
		if gerr != nil {
			var pgErr *pgconn.PgError
			if !errors.As(gerr, &pgErr) {
				return failed, gerr
			}
			if err == nil {
				failed, err = -1, gerr // the commit failed
			}
			continue
		}
		switch res.(type) {
		case *pgconn.PipelineSync:
			return failed, err
		case nil:
			return failed, errors.New("pipeline: the server ended the results before the Sync")
		}
	}
}

// preparable names the statements Pipelines prepares on each connection:
// the first maxPrepared distinct texts it sees (the store's statements and
// a service's fixed writes); any further text, say SQL built per request,
// is sent unnamed, so the statements kept on a connection stay bounded.
type preparable struct {
	mu    sync.Mutex
	names map[string]string
}

const maxPrepared = 256

func (p *preparable) name(sql string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if name, ok := p.names[sql]; ok {
		return name
	}
	if len(p.names) >= maxPrepared {
		return ""
	}
	sum := sha256.Sum256([]byte(sql))
	name := "retryspec_" + hex.EncodeToString(sum[:16])
	p.names[sql] = name
	return name
}

// StartTimeout bounds connecting to the store and checking its table.
const StartTimeout = 30 * time.Second

// DSN turns a store URL into a database/sql driver name, its data source
// name and the storage dialect. The store's own AcceptAsyncCommit
// parameter never reaches the driver (PostgreSQL refuses a connection
// that names a setting it does not know).
func DSN(rawURL string) (driver, dsn string, dialect storage.Dialect, err error) {
	if rawURL, _, err = ownParams(rawURL); err != nil {
		return "", "", "", err
	}
	b, driver, dsn, err := lookup(rawURL)
	return driver, dsn, b.dialect, err
}

// lookup finds the backend whose scheme starts rawURL and its driver's
// data source name.
func lookup(rawURL string) (b backend, driver, dsn string, err error) {
	for _, b := range backends {
		for _, scheme := range b.schemes {
			if strings.HasPrefix(rawURL, scheme) {
				driver, dsn, err := b.dsn(rawURL)
				return b, driver, dsn, err
			}
		}
	}
	//lint:ignore ST1005 the "..." stands for the rest of a URL, not a sentence's end; the message is part of the CLI's output
	return backend{}, "", "", fmt.Errorf("idempotency: unknown store %q: use sqlite:FILE, postgres://... or mysql://...", redact(rawURL))
}

func postgresDSN(rawURL string) (string, string, error) { return "pgx", rawURL, nil }

func sqliteDSN(rawURL string) (string, string, error) {
	file := strings.TrimPrefix(strings.TrimPrefix(rawURL, "sqlite:"), "//")
	if file == "" {
		return "", "", errors.New("idempotency: sqlite: needs a file name, as in sqlite:payouts.db")
	}
	return "sqlite", "file:" + file + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_txlock=immediate", nil
}

func mysqlDSN(rawURL string) (string, string, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", "", fmt.Errorf("idempotency: bad mysql URL: %w", err)
	}
	cfg := mysql.NewConfig()
	cfg.User = u.User.Username()
	cfg.Passwd, _ = u.User.Password()
	cfg.Net = "tcp"
	cfg.Addr = u.Host
	if strings.HasPrefix(u.Host, "unix(") || u.Query().Get("socket") != "" {
		cfg.Net, cfg.Addr = "unix", u.Query().Get("socket")
	}
	cfg.DBName = strings.TrimPrefix(u.Path, "/")
	// Rows matched, not rows changed: a fenced update that matched its
	// row is not a lost fence because its values did not change.
	cfg.ClientFoundRows = true
	cfg.Timeout = StartTimeout
	return "mysql", cfg.FormatDSN(), nil
}

// redact hides a URL's password in messages.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}
