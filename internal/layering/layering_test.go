package layering

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/internal/testenv"
)

const module = "github.com/retryspec/retryspec/"

// mayImport lists, for every package of the module (relative to the
// module path), the packages of ours its non-test files may import
// directly. Transitive imports follow from the rows. A package that may
// import anything of ours lists "*".
var mayImport = map[string][]string{
	// The model and the findings type import nothing of ours.
	"contract":        {},
	"contract/schema": {},
	"findings":        {},
	"templates":       {},

	"contract/rules": {"contract", "findings"},
	"contract/diff":  {"contract", "findings"}, // findings: the one diagnostic printer (issue 18 item 1)
	// internal/copyset: the learned reader trains on the labelled sets.
	"copylint":             {"contract", "contract/rules", "findings", "internal/copyset", "internal/safeout"},
	"openapi":              {"contract", "contract/rules", "findings"}, // rules: rule IDs live in the catalog only (issue 18 item 6)
	"render":               {"contract", "contract/rules", "internal/safeout", "render/schedule", "render/svg", "templates"},
	"render/schedule":      {"contract"},
	"render/svg":           {"contract", "render/schedule"},
	"site":                 {"contract", "contract/diff", "contract/rules", "copylint", "findings", "internal/safeout", "openapi", "render", "snippets"},
	"snippets":             {"contract"},
	"snippets/faultserver": {},
	"snippets/run":         {},
	"snippets/suite":       {"contract", "snippets", "snippets/faultserver", "snippets/run"},
	"storage":              {"contract"},
	"idempotency":          {"contract", "contract/rules", "findings", "idempotency/alerting", "idempotency/keystore", "internal/flaws"},
	"idempotency/alerting": {"contract"},
	// The store interface, between the middleware and a store as
	// database/sql/driver is between database/sql and a driver: it imports
	// neither side, so the middleware and the stores meet only there.
	"idempotency/keystore": {},
	// The SQL store, its batching and its native-client hooks, apart from
	// the middleware's API (issue 31 item 3): a store, not a user of the
	// middleware, so it imports keystore, never idempotency.
	"idempotency/stores":          {"contract", "idempotency/internal/batch", "idempotency/internal/native", "idempotency/keystore", "storage"},
	"idempotency/internal/batch":  {},
	"idempotency/internal/native": {},
	"verify":                      {"contract", "contract/rules", "findings"},
	"verify/client":               {"contract", "contract/rules", "findings", "snippets", "snippets/faultserver", "snippets/suite", "verify"},
	"verify/field":                {}, // test files only: the field suite imports cli and verify from its test

	// The CLI is the top: it wires every domain package to the terminal.
	"cli":           {"*"},
	"cmd/retryspec": {"cli"},

	"examples/payouts":        {},
	"examples/payouts/server": {"contract", "examples/payouts", "idempotency", "idempotency/keystore", "idempotency/stores", "internal/flaws", "storage"},

	"internal/atomicwrite": {},
	"internal/safeout":     {"internal/atomicwrite"},
	"internal/testenv":     {},
	// The middleware's deliberate flaws, named outside its public API for
	// the reference server's --flaw (issue 31 item 3).
	"internal/flaws":       {},
	"internal/dbtest":      {"idempotency", "idempotency/stores", "internal/testenv", "storage"},
	"internal/golden":      {},
	"internal/linediff":    {},
	"internal/testsummary": {},
	"internal/actiontest":  {},
	"internal/hostiletest": {},
	"internal/layering":    {},
	"internal/formatdoc":   {},
	// The labelled copy sets' reader imports nothing of ours; learngen,
	// the command go generate runs, trains the reader the lint embeds;
	// learnfold trains it once per fold for bench/copyfield.
	"internal/copyset":   {},
	"internal/learngen":  {"contract", "copylint", "internal/copyset"},
	"internal/learnfold": {"contract", "copylint"},

	"bench/copyfield": {},
	"bench/harness":   {},
}

// testOnly packages exist for tests: no non-test file outside them imports
// one, and only they (and test files) may import "testing".
var testOnly = []string{"internal/testenv", "internal/dbtest", "internal/golden", "internal/linediff"}

// reserved names import paths (a prefix) only the listed packages of ours
// may import directly from non-test files.
var reserved = []struct {
	prefix string
	only   []string
	why    string
}{
	{"github.com/spf13/cobra", []string{"cli"}, "only the CLI knows about commands and flags"},
	{"github.com/getkin/kin-openapi", []string{"openapi"}, "one package owns OpenAPI loading"},
	{"github.com/jackc/pgx", []string{"idempotency/stores", "internal/dbtest"}, "the drivers live in stores, so the middleware imports none"},
	{"github.com/go-sql-driver/mysql", []string{"idempotency/stores", "internal/dbtest"}, "the drivers live in stores, so the middleware imports none"},
	{"modernc.org/sqlite", []string{"idempotency/stores", "internal/dbtest"}, "the drivers live in stores, so the middleware imports none"},
	{"github.com/alecthomas/chroma", []string{"render"}, "one configured highlighter"},
	{"github.com/chromedp", []string{}, "the browser is for tests only"},
}

// forbidden lists standard packages a package must not import even
// indirectly (its Deps), where its package comment promises so.
var forbidden = map[string][]string{
	"snippets": {"os/exec", "net", "net/http"},     // generation is pure: contract in, text out
	"storage":  {"database/sql", "os/exec", "net"}, // generation is pure; it opens no database
	"contract": {"os/exec", "net", "net/http"},
	"findings": {"os/exec", "net", "net/http"},
}

type pkg struct {
	ImportPath   string
	Imports      []string
	Deps         []string
	TestImports  []string
	XTestImports []string
}

// list runs go list once over the whole module.
func list(t *testing.T) map[string]pkg {
	t.Helper()
	touchSources(t)
	goBin := testenv.LookPath(t, "go")
	cmd := exec.Command(goBin, "list", "-e", "-json=ImportPath,Imports,Deps,TestImports,XTestImports", "./...")
	cmd.Dir = testenv.RepoRoot(t)
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	pkgs := map[string]pkg{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		rel, ok := strings.CutPrefix(p.ImportPath, module)
		if !ok {
			t.Fatalf("go list returned %s, outside the module", p.ImportPath)
		}
		pkgs[rel] = p
	}
	if len(pkgs) < 20 {
		t.Fatalf("go list found only %d packages", len(pkgs))
	}
	return pkgs
}

// touchSources stats every Go file of the module. go test caches a passing
// result until a file the test itself opened changes, and this test reads
// the sources only through go list, a child process: without this, an
// import added anywhere would be answered from the cache.
func touchSources(t *testing.T) {
	t.Helper()
	err := filepath.WalkDir(testenv.RepoRoot(t), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if strings.HasSuffix(p, ".go") {
			_, err = os.Stat(p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func ours(path string) (string, bool) { return strings.CutPrefix(path, module) }

func TestImportDirection(t *testing.T) {
	for _, v := range violations(list(t)) {
		t.Error(v)
	}
}

// violations checks every package against the tables above.
func violations(pkgs map[string]pkg) []string {
	var out []string
	bad := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	for _, rel := range slices.Sorted(maps.Keys(mayImport)) {
		if _, ok := pkgs[rel]; !ok {
			bad("mayImport has a row for %s, which is not a package of the module: remove it", rel)
		}
	}
	for _, rel := range slices.Sorted(maps.Keys(pkgs)) {
		p := pkgs[rel]
		allowed, ok := mayImport[rel]
		if !ok {
			bad("%s has no row in mayImport: add one naming the packages of ours it may import, and say the same in its doc.go", rel)
			continue
		}
		for _, imp := range p.Imports {
			dep, ok := ours(imp)
			if !ok {
				continue
			}
			if slices.Contains(testOnly, dep) && !slices.Contains(testOnly, rel) {
				bad("%s imports %s, which exists for tests only", rel, dep)
			} else if !slices.Contains(allowed, dep) && !slices.Contains(allowed, "*") {
				bad("%s imports %s; its row in mayImport allows %v", rel, dep, allowed)
			}
		}
		if slices.Contains(p.Imports, "testing") && !slices.Contains(testOnly, rel) {
			bad("%s imports testing in a non-test file", rel)
		}
		for _, r := range reserved {
			for _, imp := range p.Imports {
				if strings.HasPrefix(imp, r.prefix) && !slices.Contains(r.only, rel) {
					bad("%s imports %s, reserved to %v: %s", rel, imp, r.only, r.why)
				}
			}
		}
		for _, std := range forbidden[rel] {
			if slices.Contains(p.Deps, std) {
				bad("%s depends on %s, which its package comment rules out", rel, std)
			}
		}
	}
	// The model and findings import nothing of ours, even indirectly.
	for _, base := range []string{"contract", "contract/schema", "findings", "templates"} {
		for _, d := range pkgs[base].Deps {
			if _, ok := ours(d); ok {
				bad("%s depends on %s; it must depend on nothing of ours", base, d)
			}
		}
	}
	return out
}

// TestHostileTestsStayOutside: the hostile suite tests the binary from the
// outside, as CI runs it, so its tests import nothing of ours but the
// test-only helpers (testenv, linediff, ...), never product code.
func TestHostileTestsStayOutside(t *testing.T) {
	p := list(t)["internal/hostiletest"]
	for _, imp := range slices.Concat(p.TestImports, p.XTestImports) {
		if dep, ok := ours(imp); ok && !slices.Contains(testOnly, dep) {
			t.Errorf("internal/hostiletest's tests import %s", dep)
		}
	}
}

// TestViolationsAreFound feeds the checks a module in which each kind of
// rule is broken once, so a check that stopped looking fails here.
func TestViolationsAreFound(t *testing.T) {
	clean := map[string]pkg{}
	for rel := range mayImport {
		clean[rel] = pkg{ImportPath: module + rel}
	}
	if v := violations(clean); len(v) > 0 {
		t.Fatalf("a module without imports breaks the rules: %v", v)
	}
	for _, tt := range []struct {
		name, rel string
		p         pkg
		want      string
	}{
		{"model imports a renderer", "contract", pkg{Imports: []string{module + "render"}, Deps: []string{module + "render"}}, "contract imports render"},
		{"indirect import into the model", "findings", pkg{Deps: []string{module + "contract"}}, "findings depends on " + module + "contract"},
		{"snippets imports its runner", "snippets", pkg{Imports: []string{module + "snippets/run"}}, "snippets imports snippets/run"},
		{"cobra below the CLI", "site", pkg{Imports: []string{"github.com/spf13/cobra"}}, "reserved to [cli]"},
		{"driver in the middleware", "idempotency", pkg{Imports: []string{"github.com/jackc/pgx/v5/stdlib"}}, "reserved to [idempotency/stores internal/dbtest]"},
		{"store interface imports the middleware", "idempotency/keystore", pkg{Imports: []string{module + "idempotency"}}, "idempotency/keystore imports idempotency"},
		{"store imports the middleware", "idempotency/stores", pkg{Imports: []string{module + "idempotency"}}, "idempotency/stores imports idempotency"},
		{"process in pure generation", "snippets", pkg{Deps: []string{"os/exec"}}, "snippets depends on os/exec"},
		{"test helper in the product", "cli", pkg{Imports: []string{module + "internal/golden"}}, "cli imports internal/golden, which exists for tests only"},
		{"testing in the product", "render", pkg{Imports: []string{"testing"}}, "render imports testing"},
		{"a package without a row", "newpkg", pkg{}, "newpkg has no row"},
	} {
		pkgs := maps.Clone(clean)
		tt.p.ImportPath = module + tt.rel
		pkgs[tt.rel] = tt.p
		v := violations(pkgs)
		if !slices.ContainsFunc(v, func(s string) bool { return strings.Contains(s, tt.want) }) {
			t.Errorf("%s: violations = %q, want one containing %q", tt.name, v, tt.want)
		}
	}
	delete(clean, "storage")
	if v := violations(clean); len(v) != 1 || !strings.Contains(v[0], "row for storage") {
		t.Errorf("a row for a missing package: violations = %q", v)
	}
}
