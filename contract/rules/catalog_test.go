package rules

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/findings"
	"github.com/retryspec/retryspec/internal/golden"
	"github.com/retryspec/retryspec/internal/testenv"
)

// overlay lays a YAML fragment over a base document: mappings merge key by
// key, anything else replaces, and a key set to null (~) is removed.
func overlay(t testing.TB, base, fragment []byte) []byte {
	t.Helper()
	var b, f yaml.Node
	if err := yaml.Unmarshal(base, &b); err != nil {
		t.Fatalf("base: %v", err)
	}
	if err := yaml.Unmarshal(fragment, &f); err != nil {
		t.Fatalf("fragment: %v\n%s", err, fragment)
	}
	if f.Kind == yaml.DocumentNode && len(f.Content) > 0 {
		mergeNode(b.Content[0], f.Content[0])
	}
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(&b); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func mergeNode(dst, src *yaml.Node) {
	for i := 0; i+1 < len(src.Content); i += 2 {
		k, v := src.Content[i], src.Content[i+1]
		j := slices.IndexFunc(dst.Content, func(n *yaml.Node) bool { return n.Value == k.Value })
		if j >= 0 && j%2 == 1 {
			j = -1 // matched a value, not a key
		}
		switch {
		case v.Tag == "!!null" && j >= 0:
			dst.Content = slices.Delete(dst.Content, j, j+2)
		case v.Tag == "!!null":
		case j < 0:
			dst.Content = append(dst.Content, k, v)
		case v.Kind == yaml.MappingNode && dst.Content[j+1].Kind == yaml.MappingNode:
			mergeNode(dst.Content[j+1], v)
		default:
			dst.Content[j+1] = v
		}
	}
}

// example returns the full contract for a rule's Bad or Good fragment.
func example(t testing.TB, fragment string) []byte {
	return overlay(t, contract.Starter(contract.StarterOptions{Answered: true}), []byte(fragment))
}

func lint(t testing.TB, name string, src []byte) []findings.Finding {
	t.Helper()
	c, err := contract.Parse(name, src)
	if err != nil {
		t.Fatalf("%s does not load: %v\n%s", name, err, src)
	}
	return Run(c)
}

func fired(fs []findings.Finding, id string) bool {
	return slices.ContainsFunc(fs, func(f findings.Finding) bool { return f.Rule == id && !f.Waived })
}

func unwaived(fs []findings.Finding) []findings.Finding {
	var out []findings.Finding
	for _, f := range fs {
		if !f.Waived {
			out = append(out, f)
		}
	}
	return out
}

var idPattern = regexp.MustCompile(`^[a-z]+/[a-z0-9]+(-[a-z0-9]+)*$`)

func TestCatalogIsWellFormed(t *testing.T) {
	cat := Catalog()
	if !slices.IsSortedFunc(cat, func(a, b Rule) int { return strings.Compare(a.ID, b.ID) }) {
		t.Error("Catalog() is not sorted by ID")
	}
	seen := map[string]bool{}
	for _, r := range cat {
		if seen[r.ID] {
			t.Errorf("%s: duplicate ID", r.ID)
		}
		seen[r.ID] = true
		if !idPattern.MatchString(r.ID) {
			t.Errorf("%s: ID is not family/kebab-case", r.ID)
		}
		if family := strings.SplitN(r.ID, "/", 2)[0]; !slices.Contains([]string{"key", "claim", "state", "endpoint", "window", "recovery", "retry", "sdk", "copy", "lint", "openapi", "verify"}, family) {
			t.Errorf("%s: unknown family %q", r.ID, family)
		}
		if r.Severity != findings.Error && r.Severity != findings.Warning {
			t.Errorf("%s: no severity", r.ID)
		}
		for what, s := range map[string]string{"Summary": r.Summary, "Rationale": r.Rationale, "Fix": r.Fix, "Bad": r.Bad, "Good": r.Good} {
			if strings.TrimSpace(s) == "" {
				t.Errorf("%s: empty %s", r.ID, what)
			}
		}
		if len(r.Sources) == 0 && !strings.HasPrefix(r.ID, "lint/") && r.ID != "copy/contradicts-contract" && r.ID != "endpoint/unknown" {
			t.Errorf("%s: rationale cites no source", r.ID)
		}
		for _, s := range r.Sources {
			if s.Title == "" || !strings.HasPrefix(s.URL, "https://") {
				t.Errorf("%s: source %+v lacks a title or an https URL", r.ID, s)
			}
		}
		switch r.Scope {
		case ScopeContract:
			if r.Check == nil && !strings.HasPrefix(r.ID, "lint/") {
				t.Errorf("%s: contract rule without a check", r.ID)
			}
		case ScopeCopy, ScopeOpenAPI, ScopeVerify:
			if r.Check != nil {
				t.Errorf("%s: %s rule has a contract check; its checker lives in its own package", r.ID, r.Scope)
			}
		default:
			t.Errorf("%s: unknown scope %q", r.ID, r.Scope)
		}
		if got, ok := ByID(r.ID); !ok || got.ID != r.ID {
			t.Errorf("ByID(%q) = %v, %v", r.ID, got.ID, ok)
		}
	}
	if _, ok := ByID("retry/nope"); ok {
		t.Error("ByID found a rule that does not exist")
	}
}

// specFixture is the spec's rule table, copied into the repository.
const specFixture = "testdata/spec-catalog.md"

var specRuleRow = regexp.MustCompile(`(?m)^\| ([a-z]+/[a-z0-9-]+) \|.*$`)

// TestCatalogCoversSpec checks that every rule ID in the spec's catalog
// table (its copy in testdata) is in the catalog: the spec is the
// interface; extra rules are fine.
func TestCatalogCoversSpec(t *testing.T) {
	data, err := os.ReadFile(specFixture)
	if err != nil {
		t.Fatal(err)
	}
	ids := specRuleRow.FindAllStringSubmatch(string(data), -1)
	if len(ids) < 40 {
		t.Fatalf("found only %d rule IDs in %s; has the table changed shape?", len(ids), specFixture)
	}
	for _, m := range ids {
		if _, ok := ByID(m[1]); !ok {
			t.Errorf("spec rule %s is not in the catalog", m[1])
		}
	}
}

// TestSpecFixtureIsCurrent is a field check: where the spec itself is
// present (../shared beside the repository), the copy in testdata must hold
// its rule table row for row. -update copies the rows again.
func TestSpecFixtureIsCurrent(t *testing.T) {
	spec := filepath.Join(testenv.RepoRoot(t), "..", "shared", "spec", "contract.md")
	data, err := os.ReadFile(spec)
	if err != nil {
		t.Skipf("field check skipped: %s is absent; TestCatalogCoversSpec runs on the copy in %s", spec, specFixture)
	}
	rows := strings.Join(specRuleRow.FindAllString(string(data), -1), "\n") + "\n"
	fixture, err := os.ReadFile(specFixture)
	if err != nil {
		t.Fatal(err)
	}
	head, _, _ := strings.Cut(string(fixture), "-->\n")
	golden.Check(t, specFixture, []byte(head+"-->\n"+rows))
}

// TestExamples runs each contract rule's Bad and Good examples, laid over
// the sound starter contract: Bad fires the rule, Good leaves the contract
// without a single unwaived finding.
func TestExamples(t *testing.T) {
	for _, r := range Catalog() {
		if r.Scope != ScopeContract {
			continue
		}
		t.Run(r.ID, func(t *testing.T) {
			bad := lint(t, "bad.yaml", example(t, r.Bad))
			if !fired(bad, r.ID) {
				t.Errorf("Bad example does not fire %s; findings: %v", r.ID, bad)
			}
			for _, f := range bad {
				want, _ := ByID(f.Rule)
				if f.Severity != want.Severity && (want.Escalates == 0 || f.Severity != want.Escalates) {
					t.Errorf("%s finding has severity %v, the rule %v", f.Rule, f.Severity, want.Severity)
				}
			}
			good := lint(t, "good.yaml", example(t, r.Good))
			if u := unwaived(good); len(u) > 0 {
				t.Errorf("Good example has findings: %v", u)
			}
		})
	}
}

// TestTestdata checks testdata/rules/<id>/{bad,good}.yaml: every contract
// rule has both, each is the catalog's example laid over the starter
// contract as -update writes it, good is clean, and bad has exactly the
// findings its "# want:" comments state, each at its line and column (see
// checkWants). -update rewrites both files, wants included, from the
// catalog and the rules' current findings: review the diff.
func TestTestdata(t *testing.T) {
	root := filepath.Join("..", "..", "testdata", "rules")
	for _, r := range Catalog() {
		if r.Scope != ScopeContract {
			continue
		}
		t.Run(r.ID, func(t *testing.T) {
			dir := filepath.Join(root, filepath.FromSlash(r.ID))
			bad := testdataFile(t, r.ID, "fires the rule", r.Bad)
			bad = addWants(t, bad, lint(t, r.ID+"/bad.yaml", bad))
			good := testdataFile(t, r.ID, "a near miss without findings", r.Good)
			golden.Check(t, filepath.Join(dir, "bad.yaml"), bad)
			golden.Check(t, filepath.Join(dir, "good.yaml"), good)

			bad, err := os.ReadFile(filepath.Join(dir, "bad.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			fs := lint(t, r.ID+"/bad.yaml", bad)
			if !fired(fs, r.ID) {
				t.Errorf("bad.yaml does not fire %s: %v", r.ID, fs)
			}
			checkWants(t, r.ID+"/bad.yaml", bad, fs)
			good, err = os.ReadFile(filepath.Join(dir, "good.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			if fs := unwaived(lint(t, r.ID+"/good.yaml", good)); len(fs) > 0 {
				t.Errorf("good.yaml has findings: %v", fs)
			}
		})
	}
}

// testdataFile is a rule's example laid over the starter contract, under a
// header saying where it came from.
func testdataFile(t *testing.T, id, what, fragment string) []byte {
	head := fmt.Sprintf("# %s: %s. Written by `go test ./contract/rules -update`\n# from the catalog's example laid over the starter contract.\n", id, what)
	return append([]byte(head), example(t, fragment)...)
}

func TestStarterIsClean(t *testing.T) {
	if fs := lint(t, "retryspec.yaml", contract.Starter(contract.StarterOptions{Answered: true})); len(fs) > 0 {
		t.Errorf("the starter contract has findings: %v", fs)
	}
}

// TestTestdataHasNoStrays: every folder under testdata/rules names a rule.
func TestTestdataHasNoStrays(t *testing.T) {
	root := filepath.Join("..", "..", "testdata", "rules")
	families, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, fam := range families {
		ids, err := os.ReadDir(filepath.Join(root, fam.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			if _, ok := ByID(fam.Name() + "/" + id.Name()); !ok {
				t.Errorf("testdata/rules/%s/%s names no rule", fam.Name(), id.Name())
			}
		}
	}
}
