package storage

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/internal/golden"
)

// TestGolden pins the SQL for every example contract in every dialect, and
// proves Parse reads back exactly the statements the stores run.
func TestGolden(t *testing.T) {
	examples, err := filepath.Glob("../examples/*/retryspec.yaml")
	if err != nil || len(examples) == 0 {
		t.Fatalf("no example contracts: %v", err)
	}
	for _, ex := range examples {
		name := filepath.Base(filepath.Dir(ex))
		c, err := contract.Load(ex)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range Dialects {
			t.Run(name+"/"+string(d), func(t *testing.T) {
				s, err := Generate(c, d)
				if err != nil {
					t.Fatal(err)
				}
				got := s.Render()
				path := filepath.Join("testdata", name+"."+string(d)+".sql")
				golden.Check(t, path, []byte(got))
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				parsed, err := Parse(string(want))
				if err != nil {
					t.Fatal(err)
				}
				var gen []Statement
				for _, st := range s.Statements {
					st.Columns = nil
					gen = append(gen, st)
				}
				if diff := cmp.Diff(gen, parsed); diff != "" {
					t.Errorf("statements parsed from %s differ from those the stores run (-generated +parsed):\n%s", path, diff)
				}
			})
		}
	}
}

func TestContractValuesReachTheSQL(t *testing.T) {
	src := `retryspec: 1
api: { name: T, base_url: https://api.t.example }
idempotency:
  max_key_length: 64
  scope: global
  claim: { store: postgres, mechanism: unique-constraint }
  in_flight: { response: conflict, lock_timeout: 45s, takeover: conditional-update }
  replay_window: 2h
  reaper_after: 5h
endpoints:
  - { operation: POST /v1/x, effect: create, key: required }
`
	c, err := contract.Parse("t.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range Dialects {
		s, err := Generate(c, d)
		if err != nil {
			t.Fatal(err)
		}
		out := s.Render()
		for _, want := range []string{
			"45000000",    // lock_timeout in microseconds (Takeover, Stale)
			"7200000000",  // replay_window (Expire)
			"18000000000", // reaper_after (Reap)
			"UNIQUE (idempotency_key)",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: %q missing", d, want)
			}
		}
		if strings.Contains(out, "account_id") {
			t.Errorf("%s: scope global still has account_id", d)
		}
		key := map[Dialect]string{Postgres: "VARCHAR(64)", MySQL: "VARBINARY(256)", SQLite: "length(idempotency_key) <= 64"}[d]
		if !strings.Contains(out, key) {
			t.Errorf("%s: key length %q missing", d, key)
		}
	}
	if _, err := Generate(c, "oracle"); err == nil {
		t.Error("unknown dialect accepted")
	}
}

// TestCommentsStayComments: a contract file named with a line break cannot
// put SQL into the generated file.
func TestCommentsStayComments(t *testing.T) {
	src, err := os.ReadFile("../examples/payouts/retryspec.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c, err := contract.Parse("evil\nDROP TABLE users;\n.yaml", src)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range Dialects {
		s, err := Generate(c, d)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(s.Render(), "\n") {
			if strings.HasPrefix(line, "DROP") {
				t.Errorf("%s: a contract value escaped its comment: %q", d, line)
			}
		}
	}
}

// TestPgbenchScriptKeepsStepWithTheStatements: bench/server-pgbench runs
// the generated PostgreSQL statements by hand, with pgbench variables in
// place of the parameters. Each of its inserts into the key table names
// every column the middleware's claim writes, and each of its reads of a
// key selects every column Lookup does, so a column added to the
// statements cannot be left out of the benchmark.
func TestPgbenchScriptKeepsStepWithTheStatements(t *testing.T) {
	script, err := os.ReadFile("../bench/server-pgbench")
	if err != nil {
		t.Fatal(err)
	}
	c, err := contract.Load("../examples/payouts/retryspec.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s, err := Generate(c, Postgres)
	if err != nil {
		t.Fatal(err)
	}
	claim, _ := s.Statement(Claim)
	lookup, _ := s.Statement(Lookup)
	inserted := regexp.MustCompile(`INSERT INTO ` + Table + ` \(([^)]*)\)`)
	want := strings.Split(inserted.FindStringSubmatch(claim.SQL)[1], ", ")
	inserts := inserted.FindAllStringSubmatch(string(script), -1)
	if len(inserts) == 0 {
		t.Fatal("no insert into the key table in bench/server-pgbench")
	}
	for _, m := range inserts {
		cols := strings.Split(m[1], ", ")
		for _, col := range want {
			if !slices.Contains(cols, col) {
				t.Errorf("bench/server-pgbench inserts (%s) without %s, which Claim writes", m[1], col)
			}
		}
	}
	// The reads: Lookup's select list, and ClaimLookup's with k. before each.
	selected := regexp.MustCompile(`(?m)^SELECT (?:EXISTS \(SELECT 1 FROM claimed\) AS won, )?((?:k\.)?operation, [^\n]*)\nFROM`)
	reads := selected.FindAllStringSubmatch(string(script), -1)
	if len(reads) == 0 {
		t.Fatal("no read of a key in bench/server-pgbench")
	}
	for _, m := range reads {
		if got := strings.ReplaceAll(m[1], "k.", ""); got != strings.Join(lookup.Columns, ", ") {
			t.Errorf("bench/server-pgbench reads %s; Lookup reads %s", got, strings.Join(lookup.Columns, ", "))
		}
	}
}
