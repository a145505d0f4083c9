package storage

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/contract"
)

// newDialect is a hypothetical dialect with numbered placeholders and none
// of the optional capabilities: what a contributor's first row for a new
// database would look like.
var newDialect = dialectRow{
	name: "newdb",
	types: columnTypes{account: "VARCHAR(255)", key: varchar("VARCHAR", 1), text: "TEXT", shortText: "VARCHAR(255)",
		blob: "BLOB", bigint: "BIGINT", integer: "INTEGER"},
	placeholders:  dollarNumbers,
	claim:         onConflictReturning,
	boundedDelete: deleteInSelect,
	locked:        lockedClaim{begin: SetSerializable, sql: "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE", forUpdate: "\nFOR UPDATE"},
}

var dollarMark = regexp.MustCompile(`\$(\d+)`)

// TestDialectGetsOnlyWhatItsRowHas: a dialect with PostgreSQL's $n
// placeholders but no array batches, no combined claim and lookup and no
// abort on a lost fence gets SQL with none of them: no arrays, no casts,
// no `?`, and only the statements every dialect has.
func TestDialectGetsOnlyWhatItsRowHas(t *testing.T) {
	for _, mech := range []contract.Mechanism{contract.MechanismUniqueConstraint, contract.MechanismRowLockSerializable} {
		t.Run(string(mech), func(t *testing.T) {
			s := generate(testContract(t, mech), newDialect)
			want := []StatementName{Claim, Lookup, Takeover, Checkpoint, Complete, Release, Expire, Reap, Stale}
			if mech == contract.MechanismRowLockSerializable {
				want = slices.Insert(want, 2, SetSerializable, LockKey)
			}
			var got []StatementName
			for _, st := range s.Statements {
				got = append(got, st.Name)
				for _, bad := range []string{"?", "unnest", "[]", "::", "WITH ", "1 / count(*)"} {
					if strings.Contains(st.SQL, bad) {
						t.Errorf("%s has %q, which the dialect's row does not offer:\n%s", st.Name, bad, st.SQL)
					}
				}
				marks := dollarMark.FindAllStringSubmatch(st.SQL, -1)
				if len(marks) != len(st.Params) {
					t.Errorf("%s: %d placeholders for %d params", st.Name, len(marks), len(st.Params))
				}
				for i, m := range marks {
					if m[1] != strconv.Itoa(i+1) {
						t.Errorf("%s: placeholder %d is $%s", st.Name, i+1, m[1])
					}
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("statements %v, want %v", got, want)
			}
		})
	}
}

// TestEachCapabilityAddsItsStatements: every optional statement comes
// from its capability alone, whatever the placeholders.
func TestEachCapabilityAddsItsStatements(t *testing.T) {
	c := testContract(t, contract.MechanismUniqueConstraint)
	for _, tc := range []struct {
		name string
		set  func(*dialectRow)
		want []StatementName
	}{
		{"claimLookup", func(d *dialectRow) { d.claimLookup = true }, []StatementName{ClaimLookup}},
		{"arrayBatches", func(d *dialectRow) { d.arrayBatches = true }, []StatementName{ClaimBatch}},
		{"both", func(d *dialectRow) { d.claimLookup, d.arrayBatches = true, true }, []StatementName{ClaimLookup, ClaimLookupBatch, ClaimBatch}},
		{"abortOnLostFence", func(d *dialectRow) { d.abortOnLostFence = true }, []StatementName{CheckpointOrAbort, CompleteOrAbort}},
	} {
		for _, marks := range []placeholderStyle{questionMarks, dollarNumbers} {
			row := newDialect
			row.placeholders = marks
			tc.set(&row)
			var extra []StatementName
			for _, st := range generate(c, row).Statements {
				if !slices.Contains([]StatementName{Claim, Lookup, Takeover, Checkpoint, Complete, Release, Expire, Reap, Stale}, st.Name) {
					extra = append(extra, st.Name)
				}
			}
			if !slices.Equal(extra, tc.want) {
				t.Errorf("%s (placeholders %d): optional statements %v, want %v", tc.name, marks, extra, tc.want)
			}
		}
	}
}

// TestDialectRowsAreConsistent: a capability that builds on RETURNING
// needs the claim form that has it.
func TestDialectRowsAreConsistent(t *testing.T) {
	for _, d := range dialects {
		if (d.claimLookup || d.arrayBatches) && d.claim != onConflictReturning {
			t.Errorf("%s: ClaimLookup and the array batches extend an ON CONFLICT ... RETURNING claim, which the row lacks", d.name)
		}
		if len(d.casts) > 0 && d.placeholders != dollarNumbers {
			t.Errorf("%s: casts follow numbered placeholders only", d.name)
		}
		if d.locked.begin != SetSerializable && d.locked.begin != BeginImmediate {
			t.Errorf("%s: the row-lock claim begins with %s", d.name, d.locked.begin)
		}
		if _, err := ParseDialect(string(d.name)); err != nil {
			t.Error(err)
		}
	}
	if _, err := ParseDialect("oracle"); err == nil || !strings.Contains(err.Error(), "postgres, mysql, sqlite") {
		t.Errorf("ParseDialect(oracle): %v, want an error listing the dialects", err)
	}
}

func TestRebind(t *testing.T) {
	for _, tc := range []struct {
		d        Dialect
		in, want string
	}{
		{Postgres, "UPDATE t SET a = ? WHERE id = ?", "UPDATE t SET a = $1 WHERE id = $2"},
		{Postgres, "SELECT '?', \"a?\" FROM t WHERE b = ? AND c = 'it''s ?' AND d = ?", "SELECT '?', \"a?\" FROM t WHERE b = $1 AND c = 'it''s ?' AND d = $2"},
		{Postgres, "SELECT 1", "SELECT 1"},
		{MySQL, "UPDATE t SET a = ? WHERE id = ?", "UPDATE t SET a = ? WHERE id = ?"},
		{SQLite, "UPDATE t SET a = ? WHERE id = ?", "UPDATE t SET a = ? WHERE id = ?"},
	} {
		if got := Rebind(tc.d, tc.in); got != tc.want {
			t.Errorf("Rebind(%s, %q) = %q, want %q", tc.d, tc.in, got, tc.want)
		}
	}
}

// TestStatementNames: every statement constant has the name the file
// shows, and Parse reads it back; a name no constant has is refused.
func TestStatementNames(t *testing.T) {
	for n := Claim; n <= Stale; n++ {
		back, ok := parseStatementName(n.String())
		if !ok || back != n {
			t.Errorf("StatementName %d: String %q reads back as %d, %v", int(n), n.String(), int(back), ok)
		}
	}
	if _, err := Parse("-- name: Claimm :one\nSELECT 1;\n"); err == nil {
		t.Error("Parse accepted a statement no constant names")
	}
}

func testContract(t *testing.T, mechanism contract.Mechanism) *contract.Contract {
	t.Helper()
	src := `retryspec: 1
api: { name: T, base_url: https://api.t.example }
idempotency:
  claim: { store: postgres, mechanism: ` + string(mechanism) + ` }
  in_flight: { response: conflict, lock_timeout: 2m }
endpoints:
  - { operation: POST /v1/x, effect: create, key: required }
`
	c, err := contract.Parse("t.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return c
}
