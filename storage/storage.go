package storage

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/retryspec/retryspec/contract"
)

// Dialects are the SQL dialects Generate writes, in the order help lists them.
var Dialects = []string{"postgres", "mysql", "sqlite"}

// Table is the key table's name in every dialect.
const Table = "idempotency_keys"

// Kinds of statement, in the sqlc convention: what running it returns.
const (
	KindOne      = ":one"      // at most one row
	KindMany     = ":many"     // rows
	KindExecRows = ":execrows" // the number of rows affected
	KindExec     = ":exec"     // nothing
)

// Statement is one named query.
type Statement struct {
	Name string
	Kind string
	// Doc says what the statement is for and which contract fields it
	// comes from; it is printed as comment lines above the statement.
	Doc []string
	// Params names each placeholder in order of appearance. MySQL and
	// SQLite placeholders are positional `?`, so a parameter used twice is
	// listed twice; PostgreSQL's `$n` are numbered in this order.
	Params []string
	// Columns names the result columns of :one and :many statements.
	Columns []string
	SQL     string
}

// Schema is everything Generate writes for one dialect.
type Schema struct {
	Dialect string
	// Scoped is true when keys are scoped per account (scope: account),
	// so the table has an account_id column.
	Scoped bool
	// KeyColumns are the columns of the unique constraint.
	KeyColumns []string
	// Columns are the table's columns in DDL order (the schema check at
	// start-up names a missing one).
	Columns []string
	// DDL is the CREATE statements, each runnable on its own.
	DDL []string
	// Upgrades add the columns a key table created by an earlier release
	// lacks, one statement per column, in the order they were added.
	Upgrades   []Upgrade
	Statements []Statement
	// header is the file's leading comment.
	header []string
}

// Upgrade is one column added to the key table after its first release,
// and the statement that adds it to an existing table (the CREATE TABLE of
// DDL has it already). Rows written before it hold NULL there.
type Upgrade struct {
	Column string
	SQL    string
}

// Statement returns the statement called name.
func (s *Schema) Statement(name string) (Statement, bool) {
	for _, st := range s.Statements {
		if st.Name == name {
			return st, true
		}
	}
	return Statement{}, false
}

// dialect holds what differs between the SQL dialects.
type dialect struct {
	name string
	// types of the columns, by role.
	account, key, text, shortText, blob, bigint, integer string
	// keyCheck, when set, bounds the key length in a CHECK (SQLite has no
	// VARCHAR length).
	keyCheck bool
	// inlineIndexes: MySQL has no CREATE INDEX IF NOT EXISTS, so the
	// indexes go inside CREATE TABLE.
	inlineIndexes bool
	numbered      bool // $1, $2 placeholders instead of ?
	// claim is the conflict-free insert's form.
	claim string
	// reapLimit is how a bounded delete is written.
	reapLimit string
	// locked is how the dialect claims a key under a row lock inside a
	// SERIALIZABLE transaction (idempotency.claim.mechanism
	// row-lock-serializable).
	locked lockedClaim
}

// lockedClaim is one dialect's form of the row-lock claim: the statement
// that makes the transaction SERIALIZABLE and where it goes, the locking
// read, and the errors after which the whole transaction runs again.
type lockedClaim struct {
	begin, beginName string
	beginDoc         string
	forUpdate        string // appended to the locking read
	retryOn          string
}

func lookupDialect(name string, c *contract.Contract) (dialect, bool) {
	n := c.Idempotency.MaxKeyLength
	switch name {
	case "postgres":
		return dialect{
			name: name, account: "VARCHAR(255)", key: fmt.Sprintf("VARCHAR(%d)", n),
			text: "TEXT", shortText: "VARCHAR(255)", blob: "BYTEA", bigint: "BIGINT", integer: "INTEGER",
			numbered: true, claim: "on-conflict", reapLimit: "in-select",
			locked: lockedClaim{beginName: "SetSerializable", begin: "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE",
				beginDoc:  "The first statement of the claim's transaction, right after BEGIN (before any query in it).",
				forUpdate: "\nFOR UPDATE", retryOn: "SQLSTATE 40001 (serialization_failure) or 40P01 (deadlock_detected)"},
		}, true
	case "mysql":
		// VARBINARY compares bytes: the default utf8mb4 collations fold
		// case, which would make the keys "A" and "a" one key. A key of n
		// characters is at most 4n bytes in UTF-8.
		return dialect{
			name: name, account: "VARBINARY(255)", key: fmt.Sprintf("VARBINARY(%d)", 4*n),
			text: "MEDIUMTEXT", shortText: "VARCHAR(255)", blob: "LONGBLOB", bigint: "BIGINT", integer: "INT",
			inlineIndexes: true, claim: "insert-ignore", reapLimit: "order-limit",
			locked: lockedClaim{beginName: "SetSerializable", begin: "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE",
				beginDoc:  "Sent on the connection just before START TRANSACTION: it sets the isolation of the next transaction only.",
				forUpdate: "\nFOR UPDATE", retryOn: "error 1213 (deadlock, SQLSTATE 40001) or 1205 (lock wait timeout)"},
		}, true
	case "sqlite":
		return dialect{
			name: name, account: "TEXT", key: "TEXT", text: "TEXT", shortText: "TEXT", blob: "BLOB",
			bigint: "INTEGER", integer: "INTEGER", keyCheck: true, claim: "on-conflict", reapLimit: "in-select",
			// SQLite has no row locks and no FOR UPDATE: every transaction is
			// serializable, and BEGIN IMMEDIATE takes the database's write
			// lock before the read, so the lock is the whole database's.
			locked: lockedClaim{beginName: "BeginImmediate", begin: "BEGIN IMMEDIATE",
				beginDoc: "SQLite has no row locks: BEGIN IMMEDIATE takes the database's write lock before the read, and SQLite transactions are serializable.",
				retryOn:  "SQLITE_BUSY (another writer held the lock past busy_timeout)"},
		}, true
	}
	return dialect{}, false
}

// Generate writes the schema and statements for dialect from the contract.
// It does not judge the contract: callers refuse contracts whose claim
// design is flawed (claim/* errors) before asking for SQL.
func Generate(c *contract.Contract, dialectName string) (*Schema, error) {
	d, ok := lookupDialect(dialectName, c)
	if !ok {
		return nil, fmt.Errorf("unknown dialect %q (one of %s)", dialectName, strings.Join(Dialects, ", "))
	}
	idem := c.Idempotency
	scoped := idem.Scope != contract.ScopeGlobal
	s := &Schema{Dialect: d.name, Scoped: scoped}
	if scoped {
		s.KeyColumns = []string{"account_id", "idempotency_key"}
	} else {
		s.KeyColumns = []string{"idempotency_key"}
	}
	lockTimeout := int64(0)
	if idem.InFlight != nil {
		lockTimeout = idem.InFlight.LockTimeout.D.Microseconds()
	}
	reaper := idem.ReaperAfter.D
	if reaper == 0 {
		reaper = idem.ReplayWindow.D
	}

	s.header = []string{
		fmt.Sprintf("retryspec storage --dialect %s: the idempotency key table and the statements that keep the contract.", d.name),
		fmt.Sprintf("Generated from %s (api %q). Regenerate after changing idempotency.*; do not edit.", baseName(c.File), c.API.Name),
		"Times are microseconds since the Unix epoch (UTC), from the service's clock: the same",
		"arithmetic in every dialect, and a test can move the clock.",
	}

	// The table. Column comments name the contract field each comes from.
	type col struct{ name, typ, doc string }
	cols := []col{}
	if scoped {
		cols = append(cols, col{"account_id", d.account + " NOT NULL", "idempotency.scope: account, so keys are per caller"})
	}
	cols = append(cols,
		col{"idempotency_key", d.key + " NOT NULL", fmt.Sprintf("idempotency.header %s; idempotency.max_key_length %d", idem.Header, idem.MaxKeyLength)},
		col{"operation", d.shortText + " NOT NULL", "endpoints[].operation the key was first used on"},
		col{"fingerprint", d.shortText + " NOT NULL", "idempotency.fingerprint " + string(idem.Fingerprint) + " (empty when none)"},
		col{"request_body", d.blob, "the request, so the completer can resume it"},
		col{"fence", d.bigint + " NOT NULL", "fencing token: 1 at the claim, +1 at each takeover"},
		col{"locked_at", d.bigint, "in-flight lease start; NULL once complete (idempotency.in_flight.lock_timeout)"},
		col{"recovery_point", d.shortText + " NOT NULL", "endpoints[].recovery_points: where a retry resumes"},
		col{"downstream_keys", d.text, "JSON object: external call -> the key sent with it (endpoints[].external_calls)"},
		col{"response_status", d.integer, "stored outcome (idempotency.stored_response, idempotency.stored_failures)"},
		col{"response_headers", d.text, "JSON object of the stored response's headers"},
		col{"response_body", d.blob, "the stored body, replayed byte for byte"},
		col{"created_at", d.bigint + " NOT NULL", fmt.Sprintf("idempotency.replay_window %s, idempotency.reaper_after %s", idem.ReplayWindow.Text, idem.ReaperAfter.Text)},
		col{"completed_at", d.bigint, ""},
		// Added after the first release: last, where ALTER TABLE puts it
		// in a table that had to be upgraded (Upgrades).
		col{targetColumn, d.text, targetDoc},
	)
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TABLE IF NOT EXISTS %s (\n", Table)
	for _, cl := range cols {
		s.Columns = append(s.Columns, cl.name)
		line := fmt.Sprintf("  %s %s,", cl.name, cl.typ)
		if cl.doc != "" {
			line += " -- " + oneLine(cl.doc)
		}
		b.WriteString(line + "\n")
	}
	if d.keyCheck {
		fmt.Fprintf(&b, "  CHECK (length(idempotency_key) <= %d), -- idempotency.max_key_length\n", idem.MaxKeyLength)
	}
	if d.inlineIndexes {
		b.WriteString("  INDEX idempotency_keys_locked_at (locked_at), -- Stale\n")
		b.WriteString("  INDEX idempotency_keys_created_at (created_at), -- Reap\n")
	}
	keyList := strings.Join(s.KeyColumns, ", ")
	rowLock := idem.Claim.Mechanism == contract.MechanismRowLockSerializable
	if rowLock {
		fmt.Fprintf(&b, "  -- one row per key; the claim itself is LockKey's locked read in a SERIALIZABLE transaction (idempotency.claim.mechanism %s)\n", idem.Claim.Mechanism)
	} else {
		fmt.Fprintf(&b, "  -- the claim: the database picks the single winner (idempotency.claim.mechanism %s)\n", idem.Claim.Mechanism)
	}
	fmt.Fprintf(&b, "  CONSTRAINT idempotency_keys_claim UNIQUE (%s)\n)", keyList)
	if d.name == "mysql" {
		b.WriteString(" ENGINE=InnoDB")
	}
	s.DDL = append(s.DDL, b.String())
	s.Upgrades = []Upgrade{{Column: targetColumn, SQL: fmt.Sprintf("ALTER TABLE %s ADD COLUMN %s %s", Table, targetColumn, d.text)}}
	if !d.inlineIndexes {
		s.DDL = append(s.DDL,
			"CREATE INDEX IF NOT EXISTS idempotency_keys_locked_at ON idempotency_keys (locked_at)",
			"CREATE INDEX IF NOT EXISTS idempotency_keys_created_at ON idempotency_keys (created_at)")
	}

	keyWhere := "idempotency_key = :idempotency_key"
	if scoped {
		keyWhere = "account_id = :account_id AND " + keyWhere
	}
	insertCols := slices.Clone(s.KeyColumns)
	insertCols = append(insertCols, "operation", "fingerprint", "request_body", targetColumn, "fence", "locked_at", "recovery_point", "downstream_keys", "created_at")
	insertVals := claimValues(insertCols, func(col string) string { return ":" + col })
	insert := fmt.Sprintf("INSERT INTO %s (%s)\nVALUES (%s)", Table, strings.Join(insertCols, ", "), strings.Join(insertVals, ", "))
	claimDoc := []string{
		"Claim the key: one insert the unique constraint arbitrates; the fencing token is 1.",
		"idempotency.claim.mechanism " + string(idem.Claim.Mechanism) + "; idempotency.scope " + string(idem.Scope) + ".",
	}
	if rowLock {
		claimDoc = []string{
			"Claim the key inside the SERIALIZABLE transaction, after LockKey returned no row; the fencing token is 1.",
			"A rival that read no row either waits on this insert or fails with " + d.locked.retryOn + ":",
			"roll back and run the transaction again from " + d.locked.beginName + ", where LockKey then returns the row.",
			"idempotency.claim.mechanism " + string(idem.Claim.Mechanism) + "; idempotency.scope " + string(idem.Scope) + ".",
		}
	}
	var claim Statement
	if d.claim == "insert-ignore" {
		claimDoc = append(claimDoc, "MySQL has no RETURNING: 1 row affected means this caller won, 0 that the key exists.")
		claim = Statement{Name: "Claim", Kind: KindExecRows, Doc: claimDoc,
			SQL: strings.Replace(insert, "INSERT INTO", "INSERT IGNORE INTO", 1)}
	} else {
		claimDoc = append(claimDoc, "A returned row means this caller won; no row, that the key exists (read it with Lookup).")
		claim = Statement{Name: "Claim", Kind: KindOne, Doc: claimDoc, Columns: []string{"fence"},
			SQL: fmt.Sprintf("%s\nON CONFLICT (%s) DO NOTHING\nRETURNING fence", insert, keyList)}
	}

	lookupCols := []string{"operation", "fingerprint", "request_body", "fence", "locked_at", "recovery_point", "downstream_keys", "response_status", "response_headers", "response_body", "created_at", targetColumn}
	lookup := Statement{Name: "Lookup", Kind: KindOne, Columns: lookupCols,
		Doc: []string{
			"A caller that lost the claim reads the row and branches on its state: complete",
			"(response_status set: compare idempotency.fingerprint, then replay), or in flight",
			"(idempotency.in_flight.response, or Takeover once idempotency.in_flight.lock_timeout passed).",
		},
		SQL: fmt.Sprintf("SELECT %s\nFROM %s\nWHERE %s", strings.Join(lookupCols, ", "), Table, keyWhere)}

	// ClaimLookup is the claim and, for a loser, the lookup in one round
	// trip: a replay then costs one statement instead of two. PostgreSQL
	// only (SQLite allows no INSERT in a WITH, MySQL has no RETURNING).
	// The SELECT reads the snapshot the statement started with, so a row
	// committed by a rival after it began is not there: won false with
	// NULL columns, and the caller falls back to Lookup.
	var claimLookup *Statement
	if d.numbered {
		var sel []string
		for _, cl := range lookupCols {
			sel = append(sel, "k."+cl)
		}
		on := "k.idempotency_key = :idempotency_key"
		if scoped {
			on = "k.account_id = :account_id AND " + on
		}
		claimLookup = &Statement{Name: "ClaimLookup", Kind: KindOne, Columns: append([]string{"won"}, lookupCols...),
			Doc: []string{
				"Claim, and for a loser the row it lost to, in one round trip (the Claim insert, then Lookup's columns).",
				"won true: this caller holds token 1, the other columns are NULL. won false: the key exists and the",
				"columns are its row, or NULL when it was committed after this statement began (read it with Lookup).",
				"idempotency.claim.mechanism " + string(idem.Claim.Mechanism) + "; idempotency.scope " + string(idem.Scope) + ".",
			},
			SQL: fmt.Sprintf("WITH claimed AS (\n%s\nON CONFLICT (%s) DO NOTHING\nRETURNING fence)\nSELECT EXISTS (SELECT 1 FROM claimed) AS won, %s\nFROM (SELECT 1) AS one\nLEFT JOIN %s AS k ON %s",
				insert, keyList, strings.Join(sel, ", "), Table, on)}
	}

	// The batched claims, ClaimLookupBatch and ClaimBatch, take one array
	// per column with one element per key, in the order of the key columns
	// (the caller sorts them, so that two batches claiming the same keys
	// wait on each other in one order and cannot deadlock), and share the
	// insert. PostgreSQL only, for the reasons ClaimLookup is.
	var batchInput, batchInsert string
	if d.numbered {
		batchCols := slices.Clone(s.KeyColumns)
		batchCols = append(batchCols, "operation", "fingerprint", "request_body", targetColumn, "recovery_point", "now")
		var arrays []string
		for _, cl := range batchCols {
			arrays = append(arrays, ":batch_"+cl)
		}
		batchInput = fmt.Sprintf("WITH input AS (\n  SELECT * FROM unnest(%s) WITH ORDINALITY AS i(%s, ord)\n)",
			strings.Join(arrays, ", "), strings.Join(batchCols, ", "))
		batchInsert = fmt.Sprintf("INSERT INTO %s (%s)\nSELECT %s\nFROM input AS i\nORDER BY i.ord\nON CONFLICT (%s) DO NOTHING\nRETURNING %s",
			Table, strings.Join(insertCols, ", "), strings.Join(claimValues(insertCols, func(col string) string { return "i." + col }), ", "), keyList, keyList)
	}

	// ClaimLookupBatch is ClaimLookup for several keys at once: a service
	// under load sends the claims that arrive while one is in flight as one
	// statement, one round trip and one commit, instead of one each.
	var claimLookupBatch *Statement
	if d.numbered {
		var selCols, onClaimed, onKey []string
		for _, cl := range lookupCols {
			selCols = append(selCols, "k."+cl)
		}
		for _, cl := range s.KeyColumns {
			onClaimed = append(onClaimed, fmt.Sprintf("c.%s = i.%s", cl, cl))
			onKey = append(onKey, fmt.Sprintf("k.%s = i.%s", cl, cl))
		}
		claimLookupBatch = &Statement{Name: "ClaimLookupBatch", Kind: KindMany, Columns: append([]string{"ord", "won"}, lookupCols...),
			Doc: []string{
				"ClaimLookup for several keys in one statement, one round trip and one commit: the claims that arrive while",
				"another is in flight travel together. Each parameter is an array with one element per key, sorted by the key",
				"columns so that batches claiming the same keys lock them in one order. One row per key, in that order (ord from 1),",
				"with won and the row it lost to as ClaimLookup returns them.",
				"idempotency.claim.mechanism " + string(idem.Claim.Mechanism) + "; idempotency.scope " + string(idem.Scope) + ".",
			},
			SQL: fmt.Sprintf("%s, claimed AS (\n%s)\n"+
				"SELECT i.ord, c.idempotency_key IS NOT NULL AS won, %s\nFROM input AS i\nLEFT JOIN claimed AS c ON %s\n"+
				"LEFT JOIN LATERAL (\n  SELECT * FROM %s AS k\n  WHERE c.idempotency_key IS NULL AND %s\n  LIMIT 1) AS k ON true\nORDER BY i.ord",
				batchInput, batchInsert, strings.Join(selCols, ", "), strings.Join(onClaimed, " AND "),
				Table, strings.Join(onKey, " AND "))}
	}

	// ClaimBatch is Claim for several keys at once, the statement the
	// middleware sends under load: the insert alone, returning the keys
	// this batch won. A loser reads its row with Lookup afterwards. Reading
	// the losers' rows inside the statement, as ClaimLookupBatch does, cost
	// every winner about a fifth more database CPU per claim (pgbench, 16
	// clients, batches of four) to save a round trip that only retries and
	// concurrent duplicates need.
	var claimBatch *Statement
	if d.numbered {
		claimBatch = &Statement{Name: "ClaimBatch", Kind: KindMany, Columns: slices.Clone(s.KeyColumns),
			Doc: []string{
				"Claim for several keys in one statement, one round trip and one commit: the claims that arrive while another",
				"is in flight travel together. Each parameter is an array with one element per key, sorted by the key columns",
				"so that batches claiming the same keys lock them in one order. Returns the keys this caller won, token 1 each;",
				"a key it did not return exists already (read it with Lookup).",
				"idempotency.claim.mechanism " + string(idem.Claim.Mechanism) + "; idempotency.scope " + string(idem.Scope) + ".",
			},
			SQL: batchInput + "\n" + batchInsert}
	}

	takeover := Statement{Name: "Takeover", Kind: KindExecRows,
		Doc: []string{
			fmt.Sprintf("Take over an abandoned claim: only while it is in flight, its lease older than idempotency.in_flight.lock_timeout (%s),", textOr(idem.InFlight, "none")),
			"and still under the token the caller read (so of two takers exactly one wins). The new token is that token + 1.",
			"idempotency.in_flight.takeover " + takeoverMode(idem.InFlight) + ".",
		},
		SQL: fmt.Sprintf("UPDATE %s\nSET fence = fence + 1, locked_at = :now\nWHERE %s\n  AND fence = :fence AND response_status IS NULL\n  AND locked_at <= :now - %d", Table, keyWhere, lockTimeout)}

	fenced := keyWhere + "\n  AND fence = :fence AND response_status IS NULL"
	checkpoint := Statement{Name: "Checkpoint", Kind: KindExecRows,
		Doc: []string{
			"Record a recovery point (endpoints[].recovery_points) and the downstream keys chosen for",
			"external calls (endpoints[].external_calls), renewing the lease. Fenced: 0 rows means",
			"another worker took the key over and this one must stop.",
		},
		SQL: fmt.Sprintf("UPDATE %s\nSET recovery_point = :recovery_point, downstream_keys = :downstream_keys, locked_at = :now\nWHERE %s", Table, fenced)}

	complete := Statement{Name: "Complete", Kind: KindExecRows,
		Doc: []string{
			"Store the response verbatim (idempotency.stored_response " + string(idem.StoredResponse) + ", idempotency.stored_failures " + orUndecided(string(idem.StoredFailures)) + ")",
			"and end the lease. Fenced: 0 rows means this worker lost the key and its response is not stored.",
		},
		SQL: fmt.Sprintf("UPDATE %s\nSET response_status = :response_status, response_headers = :response_headers, response_body = :response_body,\n    recovery_point = :recovery_point, locked_at = NULL, completed_at = :now\nWHERE %s", Table, fenced)}

	release := Statement{Name: "Release", Kind: KindExecRows,
		Doc: []string{
			"End the lease without a stored response, keeping the recovery point, so the next retry",
			"takes over at once and resumes (idempotency.stored_failures reattempt; a handler that gave up). Fenced.",
		},
		SQL: fmt.Sprintf("UPDATE %s\nSET locked_at = 0\nWHERE %s", Table, fenced)}

	expire := Statement{Name: "Expire", Kind: KindExecRows,
		Doc: []string{
			fmt.Sprintf("Forget a completed key older than idempotency.replay_window (%s), so its reuse is a new request", idem.ReplayWindow.Text),
			"(idempotency.after_window " + string(idem.AfterWindow) + "). Matches the token read, so a fresh claim is never deleted.",
		},
		SQL: fmt.Sprintf("DELETE FROM %s\nWHERE %s\n  AND fence = :fence AND response_status IS NOT NULL\n  AND created_at <= :now - %d", Table, keyWhere, idem.ReplayWindow.D.Microseconds())}

	var reapSQL string
	reapCut := fmt.Sprintf("created_at <= :now - %d", reaper.Microseconds())
	if d.reapLimit == "order-limit" {
		reapSQL = fmt.Sprintf("DELETE FROM %s\nWHERE %s\nORDER BY created_at\nLIMIT :limit", Table, reapCut)
	} else {
		reapSQL = fmt.Sprintf("DELETE FROM %s\nWHERE (%s) IN (\n  SELECT %s FROM %s\n  WHERE %s\n  ORDER BY created_at\n  LIMIT :limit)", Table, keyList, keyList, Table, reapCut)
	}
	reapField, reapText := "idempotency.reaper_after", idem.ReaperAfter.Text
	if idem.ReaperAfter.IsZero() {
		reapField, reapText = "idempotency.replay_window (no reaper_after)", idem.ReplayWindow.Text
	}
	reap := Statement{Name: "Reap", Kind: KindExecRows,
		Doc: []string{
			fmt.Sprintf("Delete keys older than %s (%s), at most :limit per run; run it until it deletes none.", reapField, reapText),
			fmt.Sprintf("idempotency.recovery.reaper %t.", idem.Recovery.Reaper),
		},
		SQL: reapSQL}

	staleCols := slices.Clone(s.KeyColumns)
	staleCols = append(staleCols, "operation", "fence", "recovery_point")
	stale := Statement{Name: "Stale", Kind: KindMany, Columns: staleCols,
		Doc: []string{
			fmt.Sprintf("Abandoned in-flight keys, lease older than idempotency.in_flight.lock_timeout (%s), oldest first,", textOr(idem.InFlight, "none")),
			fmt.Sprintf("for the completer (idempotency.recovery.completer %t) to take over and finish.", idem.Recovery.Completer),
		},
		SQL: fmt.Sprintf("SELECT %s\nFROM %s\nWHERE response_status IS NULL AND locked_at <= :now - %d\nORDER BY locked_at\nLIMIT :limit", strings.Join(staleCols, ", "), Table, lockTimeout)}

	all := []Statement{claim, lookup}
	if rowLock {
		all = append(all, lockedStatements(d, lookupCols, keyWhere)...)
	}
	if claimLookup != nil {
		all = append(all, *claimLookup, *claimLookupBatch, *claimBatch)
	}
	all = append(all, takeover, checkpoint, complete)
	if d.numbered {
		// CheckpointOrAbort and CompleteOrAbort are Checkpoint and Complete
		// for a pipeline (PostgreSQL): the handler's writes and the fenced
		// write travel in one round trip and commit together at its end,
		// so a lost fence must abort them; 0 rows cannot. Dividing by the
		// count of rows updated fails the statement, and with it the
		// pipeline's implicit transaction, when the fence was lost.
		fields := map[string]string{"Checkpoint": "endpoints[].recovery_points", "Complete": "idempotency.stored_response " + string(idem.StoredResponse)}
		for _, st := range []Statement{checkpoint, complete} {
			all = append(all, Statement{Name: st.Name + "OrAbort", Kind: KindOne, Columns: []string{"held"},
				Doc: []string{
					st.Name + ", sent in one pipeline after the handler's own writes so that both commit together (" + fields[st.Name] + ").",
					"Fenced like " + st.Name + ", but a lost fence fails the statement (division by zero, SQLSTATE 22012) so that the",
					"pipeline's transaction, the handler's writes with it, rolls back instead of committing without the key.",
				},
				SQL: fmt.Sprintf("WITH fenced AS (\n%s\nRETURNING fence)\nSELECT 1 / count(*) AS held FROM fenced", st.SQL)})
		}
	}
	all = append(all, release, expire, reap, stale)
	for _, st := range all {
		st.SQL, st.Params = bind(st.SQL, d.numbered)
		s.Statements = append(s.Statements, st)
	}
	return s, nil
}

// targetColumn holds the request's target (path and query, as the first
// attempt received it), so the completer can rebuild a request whose path
// has parameters (/v1/accounts/{id}/payouts). NULL in rows claimed before
// it existed.
const (
	targetColumn = "request_target"
	targetDoc    = "the request's path and query, so the completer can rebuild it (NULL in rows from before this column)"
)

// lockedStatements are the row-lock claim's own statements (idempotency.claim.mechanism
// row-lock-serializable, Brandur Leach's design): make the transaction
// SERIALIZABLE, then read the key's row under a lock. No row: Claim inserts
// it in the same transaction. A row: the caller lost and branches on it as
// on Lookup's, still holding the lock, so a takeover cannot race it.
func lockedStatements(d dialect, cols []string, keyWhere string) []Statement {
	begin := Statement{Name: d.locked.beginName, Kind: KindExec,
		Doc: []string{
			"Begin the row-lock claim's transaction as SERIALIZABLE (idempotency.claim.mechanism row-lock-serializable).",
			d.locked.beginDoc,
			"On " + d.locked.retryOn + " anywhere in the transaction, roll back and run it again from here.",
		},
		SQL: d.locked.begin}
	lock := Statement{Name: "LockKey", Kind: KindOne, Columns: cols,
		Doc: []string{
			"Read the key's row and hold it locked until the transaction ends. No row: this caller claims with Claim in the same",
			"transaction. A row: branch on it as on Lookup's (replay, in-flight conflict, or Takeover once the lease expired).",
		},
		SQL: fmt.Sprintf("SELECT %s\nFROM %s\nWHERE %s%s", strings.Join(cols, ", "), Table, keyWhere, d.locked.forUpdate)}
	return []Statement{begin, lock}
}

var pgCasts = map[string]string{"now": "::bigint", "fence": "::bigint", "limit": "::bigint", "response_status": "::integer",
	"batch_account_id": "::text[]", "batch_idempotency_key": "::text[]", "batch_operation": "::text[]", "batch_fingerprint": "::text[]",
	"batch_request_body": "::bytea[]", "batch_request_target": "::text[]", "batch_recovery_point": "::text[]", "batch_now": "::bigint[]"}

var namedParam = regexp.MustCompile(`:[a-z_]+`)

// bind replaces :name placeholders with the dialect's and lists the names.
func bind(sql string, numbered bool) (string, []string) {
	var params []string
	out := namedParam.ReplaceAllStringFunc(sql, func(m string) string {
		params = append(params, m[1:])
		if numbered {
			// PostgreSQL infers an untyped parameter's type from its
			// context, and `$1 - 120000000` would make it a 32-bit
			// integer; the casts keep microsecond times 64-bit.
			return "$" + strconv.Itoa(len(params)) + pgCasts[m[1:]]
		}
		return "?"
	})
	return out, params
}

func textOr(f *contract.InFlight, none string) string {
	if f == nil || f.LockTimeout.IsZero() {
		return none
	}
	return f.LockTimeout.Text
}

func takeoverMode(f *contract.InFlight) string {
	if f == nil || f.Takeover == "" {
		return "(absent)"
	}
	return string(f.Takeover)
}

func orUndecided(s string) string {
	if s == "" {
		return "(undecided)"
	}
	return s
}

func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}

// oneLine keeps contract text inside a `--` comment: a line break (or any
// control character) in a value would otherwise end the comment and put
// the rest of the value in the SQL.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == 0x2028 || r == 0x2029 || r == 0x85 {
			return ' '
		}
		return r
	}, s)
}

// claimValues is the VALUES list of a claim's insert, one per column of
// cols: the first fencing token, the clock for the lease and the creation
// time, no downstream keys yet, and value(col) for what the caller sends
// (a parameter, or a column of the batch's unnested arrays).
func claimValues(cols []string, value func(col string) string) []string {
	var vals []string
	for _, col := range cols {
		switch col {
		case "fence":
			vals = append(vals, "1")
		case "locked_at", "created_at":
			vals = append(vals, value("now"))
		case "downstream_keys":
			vals = append(vals, "'{}'")
		default:
			vals = append(vals, value(col))
		}
	}
	return vals
}
