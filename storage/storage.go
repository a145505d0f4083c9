package storage

import (
	"fmt"
	"strings"

	"github.com/retryspec/retryspec/contract"
)

// Table is the key table's name in every dialect.
const Table = "idempotency_keys"

// Statement is one named query.
type Statement struct {
	Name StatementName
	Kind Kind
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
	Dialect Dialect
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

// Statement returns the statement called name, and whether the dialect
// has it.
func (s *Schema) Statement(name StatementName) (Statement, bool) {
	for _, st := range s.Statements {
		if st.Name == name {
			return st, true
		}
	}
	return Statement{}, false
}

// Generate writes the schema and statements for dialect d from the
// contract. It does not judge the contract: callers refuse contracts
// whose claim design is flawed (claim/* errors) before asking for SQL.
func Generate(c *contract.Contract, d Dialect) (*Schema, error) {
	row, ok := d.row()
	if !ok {
		return nil, fmt.Errorf("unknown dialect %q (one of %s)", d, dialectList())
	}
	return generate(c, row), nil
}

// generate writes the schema of one dialect row.
func generate(c *contract.Contract, row dialectRow) *Schema {
	g := newGen(c, row)
	s := &Schema{Dialect: row.name, Scoped: g.scoped, KeyColumns: g.keyCols, header: g.header()}
	s.DDL, s.Columns = g.ddl()
	s.Upgrades = []Upgrade{{Column: targetColumn, SQL: fmt.Sprintf("ALTER TABLE %s ADD COLUMN %s %s", Table, targetColumn, row.types.text)}}
	for _, st := range g.statements() {
		st.SQL, st.Params = g.bind(st.SQL)
		s.Statements = append(s.Statements, st)
	}
	return s
}

// gen holds what the statements of one contract and dialect share.
type gen struct {
	d    dialectRow
	c    *contract.Contract
	idem contract.Idempotency
	// scoped: keys are per account (idempotency.scope account).
	scoped bool
	// rowLock: the claim is a locked read in a SERIALIZABLE transaction.
	rowLock bool
	// keyCols are the unique constraint's columns, keyList them joined.
	keyCols []string
	keyList string
	// keyWhere selects one key's row.
	keyWhere string
	// lockTimeout is idempotency.in_flight.lock_timeout in microseconds.
	lockTimeout int64
}

func newGen(c *contract.Contract, d dialectRow) *gen {
	idem := c.Idempotency
	g := &gen{d: d, c: c, idem: idem, scoped: idem.Scope != contract.ScopeGlobal,
		rowLock: idem.Claim.Mechanism == contract.MechanismRowLockSerializable}
	g.keyCols = []string{"idempotency_key"}
	g.keyWhere = "idempotency_key = :idempotency_key"
	if g.scoped {
		g.keyCols = []string{"account_id", "idempotency_key"}
		g.keyWhere = "account_id = :account_id AND " + g.keyWhere
	}
	g.keyList = strings.Join(g.keyCols, ", ")
	if idem.InFlight != nil {
		g.lockTimeout = idem.InFlight.LockTimeout.D.Microseconds()
	}
	return g
}

func (g *gen) header() []string {
	return []string{
		fmt.Sprintf("retryspec storage --dialect %s: the idempotency key table and the statements that keep the contract.", g.d.name),
		fmt.Sprintf("Generated from %s (api %q). Regenerate after changing idempotency.*; do not edit.", baseName(g.c.File), g.c.API.Name),
		"Times are microseconds since the Unix epoch (UTC), from the service's clock: the same",
		"arithmetic in every dialect, and a test can move the clock.",
	}
}

// column is one column of the key table; doc names the contract field it
// comes from.
type column struct{ name, typ, doc string }

func (g *gen) columns() []column {
	idem, t := g.idem, g.d.types
	var cols []column
	if g.scoped {
		cols = append(cols, column{"account_id", t.account + " NOT NULL", "idempotency.scope: account, so keys are per caller"})
	}
	return append(cols,
		column{"idempotency_key", t.key(idem.MaxKeyLength) + " NOT NULL", keyColumnNote(idem)},
		column{"operation", t.shortText + " NOT NULL", "endpoints[].operation the key was first used on"},
		column{"fingerprint", t.shortText + " NOT NULL", "idempotency.fingerprint " + string(idem.Fingerprint) + " (empty when none)"},
		column{"request_body", t.blob, "the request, so the completer can resume it"},
		column{"fence", t.bigint + " NOT NULL", "fencing token: 1 at the claim, +1 at each takeover"},
		column{"locked_at", t.bigint, "in-flight lease start; NULL once complete (idempotency.in_flight.lock_timeout)"},
		column{"recovery_point", t.shortText + " NOT NULL", "endpoints[].recovery_points: where a retry resumes"},
		column{"downstream_keys", t.text, "JSON object: external call -> the key sent with it (endpoints[].external_calls)"},
		column{"response_status", t.integer, "stored outcome (idempotency.stored_response, idempotency.stored_failures)"},
		column{"response_headers", t.text, "JSON object of the stored response's headers"},
		column{"response_body", t.blob, "the stored body, replayed byte for byte"},
		column{"created_at", t.bigint + " NOT NULL", fmt.Sprintf("idempotency.replay_window %s, idempotency.reaper_after %s", idem.ReplayWindow.Text, idem.ReaperAfter.Text)},
		column{"completed_at", t.bigint, ""},
		// Added after the first release: last, where ALTER TABLE puts it
		// in a table that had to be upgraded (Upgrades).
		column{targetColumn, t.text, targetDoc},
	)
}

// ddl is the CREATE statements and the table's columns in their order.
func (g *gen) ddl() (ddl, names []string) {
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TABLE IF NOT EXISTS %s (\n", Table)
	for _, cl := range g.columns() {
		names = append(names, cl.name)
		line := fmt.Sprintf("  %s %s,", cl.name, cl.typ)
		if cl.doc != "" {
			line += " -- " + oneLine(cl.doc)
		}
		b.WriteString(line + "\n")
	}
	if g.d.keyLengthCheck {
		fmt.Fprintf(&b, "  CHECK (length(idempotency_key) <= %d), -- idempotency.max_key_length\n", g.idem.MaxKeyLength)
	}
	if g.d.inlineIndexes {
		b.WriteString("  INDEX idempotency_keys_locked_at (locked_at), -- Stale\n")
		b.WriteString("  INDEX idempotency_keys_created_at (created_at), -- Reap\n")
	}
	if g.rowLock {
		fmt.Fprintf(&b, "  -- one row per key; the claim itself is LockKey's locked read in a SERIALIZABLE transaction (idempotency.claim.mechanism %s)\n", g.idem.Claim.Mechanism)
	} else {
		fmt.Fprintf(&b, "  -- the claim: the database picks the single winner (idempotency.claim.mechanism %s)\n", g.idem.Claim.Mechanism)
	}
	fmt.Fprintf(&b, "  CONSTRAINT idempotency_keys_claim UNIQUE (%s)\n)%s", g.keyList, g.d.tableOptions)
	ddl = []string{b.String()}
	if !g.d.inlineIndexes {
		ddl = append(ddl,
			"CREATE INDEX IF NOT EXISTS idempotency_keys_locked_at ON idempotency_keys (locked_at)",
			"CREATE INDEX IF NOT EXISTS idempotency_keys_created_at ON idempotency_keys (created_at)")
	}
	return ddl, names
}

// targetColumn holds the request's target (path and query, as the first
// attempt received it), so the completer can rebuild a request whose path
// has parameters (/v1/accounts/{id}/payouts). NULL in rows claimed before
// it existed.
const (
	targetColumn = "request_target"
	targetDoc    = "the request's path and query, so the completer can rebuild it (NULL in rows from before this column)"
)

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

// prefixed qualifies each column with a table alias.
func prefixed(alias string, cols []string) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = alias + "." + c
	}
	return out
}

// keyColumnNote says where the key column's values come from: the header,
// or the body member under idempotency.key_in: body.
func keyColumnNote(idem contract.Idempotency) string {
	if idem.InBody() {
		return fmt.Sprintf("idempotency.key_field %s; idempotency.max_key_length %d", idem.KeyFieldPointer(), idem.MaxKeyLength)
	}
	return fmt.Sprintf("idempotency.header %s; idempotency.max_key_length %d", idem.Header, idem.MaxKeyLength)
}
