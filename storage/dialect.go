package storage

import (
	"fmt"
	"strconv"
	"strings"
)

// Dialect names a SQL dialect Generate writes: the value of `retryspec
// storage --dialect` and of a store URL's scheme.
type Dialect string

const (
	Postgres Dialect = "postgres" // PostgreSQL
	MySQL    Dialect = "mysql"    // MySQL and MariaDB
	SQLite   Dialect = "sqlite"
)

// Dialects are the dialects Generate writes, in the order help lists them.
var Dialects = func() []Dialect {
	out := make([]Dialect, len(dialects))
	for i, d := range dialects {
		out[i] = d.name
	}
	return out
}()

// dialects is every dialect as a row of what it has. Generate writes a
// statement only for a dialect whose row has each capability the
// statement needs, so a dialect is never given another's SQL by default:
// a new row starts with none of the optional statements and adds each
// capability it has been shown to support (CONTRIBUTING.md).
var dialects = []dialectRow{
	{
		name: Postgres,
		types: columnTypes{account: "VARCHAR(255)", key: varchar("VARCHAR", 1), text: "TEXT", shortText: "VARCHAR(255)",
			blob: "BYTEA", bigint: "BIGINT", integer: "INTEGER"},
		placeholders: dollarNumbers,
		// PostgreSQL infers an untyped parameter's type from its context,
		// and `$1 - 120000000` would make it a 32-bit integer: the casts
		// keep microsecond times 64-bit and give the batches' arrays a type.
		casts: map[string]string{"now": "::bigint", "fence": "::bigint", "limit": "::bigint", "response_status": "::integer",
			"batch_account_id": "::text[]", "batch_idempotency_key": "::text[]", "batch_operation": "::text[]", "batch_fingerprint": "::text[]",
			"batch_request_body": "::bytea[]", "batch_request_target": "::text[]", "batch_recovery_point": "::text[]", "batch_now": "::bigint[]"},
		claim:            onConflictReturning,
		claimLookup:      true,
		arrayBatches:     true,
		abortOnLostFence: true,
		boundedDelete:    deleteInSelect,
		locked: lockedClaim{begin: SetSerializable, sql: setSerializable,
			doc:       "The first statement of the claim's transaction, right after BEGIN (before any query in it).",
			forUpdate: "\nFOR UPDATE", retryOn: "SQLSTATE 40001 (serialization_failure) or 40P01 (deadlock_detected)"},
	},
	{
		name: MySQL,
		// VARBINARY compares bytes: the default utf8mb4 collations fold
		// case, which would make the keys "A" and "a" one key. A key of n
		// characters is at most 4n bytes in UTF-8.
		types: columnTypes{account: "VARBINARY(255)", key: varchar("VARBINARY", 4), text: "MEDIUMTEXT", shortText: "VARCHAR(255)",
			blob: "LONGBLOB", bigint: "BIGINT", integer: "INT"},
		placeholders:  questionMarks,
		inlineIndexes: true,
		tableOptions:  " ENGINE=InnoDB",
		claim:         insertIgnore,
		boundedDelete: deleteOrderLimit,
		locked: lockedClaim{begin: SetSerializable, sql: setSerializable,
			doc:       "Sent on the connection just before START TRANSACTION: it sets the isolation of the next transaction only.",
			forUpdate: "\nFOR UPDATE", retryOn: "error 1213 (deadlock, SQLSTATE 40001) or 1205 (lock wait timeout)"},
	},
	{
		name: SQLite,
		types: columnTypes{account: "TEXT", key: func(int) string { return "TEXT" }, text: "TEXT", shortText: "TEXT",
			blob: "BLOB", bigint: "INTEGER", integer: "INTEGER"},
		placeholders:   questionMarks,
		keyLengthCheck: true,
		claim:          onConflictReturning,
		boundedDelete:  deleteInSelect,
		// SQLite has no row locks and no FOR UPDATE: every transaction is
		// serializable, and BEGIN IMMEDIATE takes the database's write
		// lock before the read, so the lock is the whole database's.
		locked: lockedClaim{begin: BeginImmediate, sql: "BEGIN IMMEDIATE",
			doc:     "SQLite has no row locks: BEGIN IMMEDIATE takes the database's write lock before the read, and SQLite transactions are serializable.",
			retryOn: "SQLITE_BUSY (another writer held the lock past busy_timeout)"},
	},
}

// setSerializable makes the next (MySQL) or current (PostgreSQL)
// transaction SERIALIZABLE.
const setSerializable = "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE"

// dialectRow is one dialect: every way its SQL differs from another's is
// a named field. The zero value of each capability is its absence.
type dialectRow struct {
	name  Dialect
	types columnTypes
	// placeholders is how a parameter is written; casts, by parameter
	// name, follow a numbered placeholder.
	placeholders placeholderStyle
	casts        map[string]string
	// keyLengthCheck bounds the key's length in a CHECK, for a dialect
	// whose text type has no length.
	keyLengthCheck bool
	// inlineIndexes puts the indexes inside CREATE TABLE, for a dialect
	// without CREATE INDEX IF NOT EXISTS.
	inlineIndexes bool
	tableOptions  string // after CREATE TABLE's closing parenthesis
	// claim is the conflict-free insert's form.
	claim claimForm
	// claimLookup: the claim and a loser's lookup in one statement
	// (ClaimLookup), which needs an INSERT inside a WITH and RETURNING,
	// and a claim of the form onConflictReturning.
	claimLookup bool
	// arrayBatches: several keys claimed in one statement from one array
	// per column (ClaimBatch; ClaimLookupBatch with claimLookup), which
	// needs array parameters, unnest WITH ORDINALITY and RETURNING.
	arrayBatches bool
	// abortOnLostFence: a fenced write that fails, rather than updating
	// no row, when the fence was lost (CheckpointOrAbort,
	// CompleteOrAbort), so a pipeline's implicit transaction rolls back
	// the handler's writes with it. Needs an UPDATE inside a WITH and a
	// division by zero that is an error.
	abortOnLostFence bool
	boundedDelete    deleteForm
	// locked is the row-lock claim (idempotency.claim.mechanism
	// row-lock-serializable).
	locked lockedClaim
}

// columnTypes are a dialect's column types, by role.
type columnTypes struct {
	account, text, shortText, blob, bigint, integer string
	key                                             func(maxKeyLength int) string
}

// varchar is a key column type of perChar bytes or characters per key
// character.
func varchar(typ string, perChar int) func(int) string {
	return func(n int) string { return fmt.Sprintf("%s(%d)", typ, perChar*n) }
}

// claimForm is how the claim's insert leaves a key that exists alone.
type claimForm int

const (
	// onConflictReturning: INSERT ... ON CONFLICT DO NOTHING RETURNING
	// fence, a row when the caller won.
	onConflictReturning claimForm = iota + 1
	// insertIgnore: INSERT IGNORE, one row affected when the caller won
	// (for a dialect without RETURNING).
	insertIgnore
)

// deleteForm is how a delete of at most :limit rows is written.
type deleteForm int

const (
	deleteInSelect   deleteForm = iota + 1 // WHERE (key) IN (SELECT ... LIMIT)
	deleteOrderLimit                       // DELETE ... ORDER BY ... LIMIT
)

// lockedClaim is one dialect's form of the row-lock claim: the statement
// that makes the transaction SERIALIZABLE and where it goes, the locking
// read, and the errors after which the whole transaction runs again.
type lockedClaim struct {
	begin     StatementName
	sql, doc  string
	forUpdate string // appended to the locking read
	retryOn   string
}

// placeholderStyle is how a dialect writes a statement's parameters.
type placeholderStyle int

const (
	questionMarks placeholderStyle = iota // ? each, bound by position
	dollarNumbers                         // $1, $2, ... in order
)

// mark is the placeholder of the n-th parameter, from 1.
func (p placeholderStyle) mark(n int) string {
	if p == dollarNumbers {
		return "$" + strconv.Itoa(n)
	}
	return "?"
}

// row returns the dialect's row.
func (d Dialect) row() (dialectRow, bool) {
	for _, r := range dialects {
		if r.name == d {
			return r, true
		}
	}
	return dialectRow{}, false
}

// ParseDialect returns the dialect called name, or an error listing them.
func ParseDialect(name string) (Dialect, error) {
	if _, ok := Dialect(name).row(); ok {
		return Dialect(name), nil
	}
	return "", fmt.Errorf("unknown dialect %q (one of %s)", name, dialectList())
}

// dialectList is the dialects' names, comma-separated, for messages.
func dialectList() string {
	names := make([]string, len(Dialects))
	for i, d := range Dialects {
		names[i] = string(d)
	}
	return strings.Join(names, ", ")
}

// Rebind rewrites a query written with `?` placeholders into dialect d's
// (PostgreSQL's $1, $2, ...), as sqlx's Rebind does, so a service writes
// its own statements once for every dialect. A `?` inside a quoted string
// or identifier is left as it is; any other is a placeholder, so write
// PostgreSQL's jsonb operators ?, ?| and ?& as the functions jsonb_exists,
// jsonb_exists_any and jsonb_exists_all. Unknown dialects get the query
// unchanged.
func Rebind(d Dialect, query string) string {
	row, ok := d.row()
	if !ok || row.placeholders == questionMarks {
		return query
	}
	var b strings.Builder
	var quote rune // the open quote, or 0
	n := 0
	for _, r := range query {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == '?':
			n++
			b.WriteString(row.placeholders.mark(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
