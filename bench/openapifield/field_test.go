// Package openapifield is the field measurement of the OpenAPI merge and
// drift on the whole real specs in ../shared/data/specs (Stripe, GitHub,
// Resend, Twilio, Adyen): the checks openapi's unit tests run on the
// excerpts in openapi/testdata/realspecs, with the whole specs' counts. It
// reads data the repository does not hold, so it lives under bench/ and not
// among openapi's tests; without the data it prints one line and skips.
//
//	go test -run '^$' -bench FieldRealSpecs -benchtime 1x -v ./bench/openapifield
package openapifield

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/internal/testenv"
	"github.com/retryspec/retryspec/openapi"
)

// specs fits each real spec's contract to what the spec already declares,
// so the merge sees no contradictions (Resend's and Adyen's keys are
// optional, Resend's up to 256 characters; openapi/realspecs_test.go's
// settings say the same for the excerpts), and holds the whole spec's
// counts (../shared/data/README.md): operations that already declare the
// key header, and state-changing operations.
var specs = map[string]struct {
	maxKeyLength  int
	postKey       string
	headersReused int
	ops           int
}{
	"stripe-openapi":              {255, "required", 0, 252},
	"github-rest-api-description": {255, "required", 0, 332},
	"resend-resend-openapi":       {256, "optional", 2, 58},
	"twilio-twilio-oai":           {255, "required", 0, 94},
	"Adyen-adyen-openapi":         {255, "optional", 22, 25},
}

// BenchmarkFieldRealSpecs merges the contract imported from each whole
// real spec into it and checks the result, then checks drift both ways
// (see checkMerge and checkDrift).
func BenchmarkFieldRealSpecs(b *testing.B) {
	paths := fieldSpecs(b)
	for i := 0; i < b.N; i++ {
		for name, path := range paths {
			checkMerge(b, name, path, specs[name].headersReused)
			checkDrift(b, path, specs[name].ops)
		}
	}
}

// fieldSpecs lists the whole real specs in ../shared/data/specs; without
// them the benchmark is skipped with one visible line (benchmark logs
// always print).
func fieldSpecs(b *testing.B) map[string]string {
	b.Helper()
	dir := filepath.Join(testenv.RepoRoot(b), "..", "shared", "data", "specs")
	if _, err := os.Stat(dir); err != nil {
		b.Skipf("FIELD DATA ABSENT: %s is missing; this measurement needs the real specs", dir)
	}
	return specsIn(b, dir)
}

func specsIn(t testing.TB, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range entries {
		files, _ := filepath.Glob(filepath.Join(dir, e.Name(), "*"))
		for _, f := range files {
			switch strings.ToLower(filepath.Ext(f)) {
			case ".yaml", ".yml", ".json":
				out[e.Name()] = f
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("no OpenAPI specs under %s", dir)
	}
	return out
}

// contractFor writes a contract for a real spec: openapi/testdata/contract.yaml's
// idempotency and retry sections with the endpoints the importer proposes,
// every POST keyed (postKey) and the given maximum key length.
func contractFor(t testing.TB, s *openapi.Spec, maxKeyLength int, postKey string) *contract.Contract {
	t.Helper()
	base, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "openapi", "testdata", "contract.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	head, rest, _ := strings.Cut(string(base), "endpoints:\n")
	_, tail, _ := strings.Cut(rest, "\nretry:\n")
	eps := openapi.Import(s)
	for i := range eps {
		if strings.HasPrefix(eps[i].Operation, "POST ") {
			eps[i].Key = postKey
		}
	}
	head = strings.Replace(head, "max_key_length: 255", fmt.Sprintf("max_key_length: %d", maxKeyLength), 1)
	src := head + string(openapi.EndpointsYAML(eps, filepath.Base(s.Path))) + "retry:\n" + tail
	c, err := contract.Parse("retryspec.yaml", []byte(src))
	if err != nil {
		t.Fatalf("generated contract does not load: %v", err)
	}
	return c
}

// checkRealMerge merges the contract imported from a real spec into it and
// checks the result: lines only added, valid, no duplicate keys, existing
// 409s and key headers reused, and a second merge adds nothing.
func checkMerge(t testing.TB, name, path string, wantHeaders int) {
	t.Helper()
	s, err := openapi.Load(path, openapi.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := contractFor(t, s, specs[name].maxKeyLength, specs[name].postKey)
	p := openapi.NewPlan(c, s)
	if len(p.Findings) > 0 {
		t.Errorf("unexpected contradictions: %v", p.Findings)
	}
	out, err := openapi.Merged(s, p)
	if err != nil {
		t.Fatal(err)
	}
	if err := addedLinesOnly(s.Data, out); err != nil {
		t.Errorf("merged spec changes existing lines: %v", err)
	}
	m, err := openapi.Parse(path+" (merged)", out, openapi.LoadOptions{})
	if err != nil {
		t.Fatalf("merged spec does not validate: %v", err)
	}
	if dup := duplicateKey(m.Root); dup != "" {
		t.Errorf("merged spec has a duplicate key: %s", dup)
	}
	// Responses the spec already had (GitHub declares 409 on 13
	// operations) are reused, once per keyed operation that has one.
	has409 := 0
	for _, e := range c.Endpoints {
		if !e.Keyed() {
			continue
		}
		if item := s.Doc.Paths.Find(e.Path); item != nil {
			if op := item.GetOperation(e.Method); op != nil && op.Responses != nil && op.Responses.Value("409") != nil {
				has409++
			}
		}
	}
	reused409 := 0
	for _, n := range p.Reused {
		if strings.HasPrefix(n.Message, "response 409 is already declared") {
			reused409++
		}
	}
	if name == "github-rest-api-description" && has409 == 0 {
		t.Error("no keyed GitHub operation declares 409: the reuse check checks nothing")
	}
	if reused409 != has409 {
		t.Errorf("%d keyed operations already declare 409, %d reported reused", has409, reused409)
	}
	if m.Format != s.Format {
		t.Errorf("merged format %v, input %v", m.Format, s.Format)
	}
	// Everything the contract asks for is now there: a second run adds nothing.
	if again := openapi.NewPlan(c, m); len(again.Edits) > 0 {
		t.Errorf("a second merge would add %d more edits, first %s %q", len(again.Edits), strings.Join(again.Edits[0].Target, "."), again.Edits[0].Key)
	}
	headers := 0
	for _, n := range p.Reused {
		if strings.HasPrefix(n.Message, "header parameter") {
			headers++
		}
	}
	if want := wantHeaders; headers != want {
		t.Errorf("%d operations reuse the spec's header parameter, want %d", headers, want)
	}
	keyed := 0
	for _, op := range m.Doc.Paths.Map() {
		for method, o := range op.Operations() {
			if method == "POST" {
				if o.Extensions["x-idempotency"] == nil {
					t.Errorf("POST operation %s has no x-idempotency", o.OperationID)
				}
				keyed++
			}
		}
	}
	t.Logf("%s: %d edits, %d keyed operations (%d POST), %d reused, %d skipped, %d -> %d bytes",
		name, len(p.Edits), p.Keyed, keyed, len(p.Reused), len(p.Skipped), len(s.Data), len(out))
}

// checkDrift: a contract imported from a spec has no drift with it;
// dropping the contract's state-changing endpoints reports every one of
// them at its line.
func checkDrift(t testing.TB, path string, want int) {
	t.Helper()
	s, err := openapi.Load(path, openapi.LoadOptions{SkipValidation: true})
	if err != nil {
		t.Fatal(err)
	}
	c := contractFor(t, s, 255, "required")
	if fs := openapi.DriftSpec(c, s); len(fs) != 0 {
		t.Errorf("%s: imported contract drifts from its spec: %d findings, first %+v", path, len(fs), fs[0])
	}
	empty, err := contract.Parse("retryspec.yaml", []byte(strings.Replace(mustRead(t, filepath.Join(testenv.RepoRoot(t), "openapi", "testdata", "contract.yaml")), "endpoints:\n", "endpoints:\n  - {operation: POST /no/such/thing, effect: create, key: required}\n", 1)))
	if err != nil {
		t.Fatal(err)
	}
	// Keep only the new first endpoint: the spec has none of the others either.
	empty.Endpoints = empty.Endpoints[:1]
	fs := openapi.DriftSpec(empty, s)
	unclassified, unknown := 0, 0
	for _, f := range fs {
		switch f.Rule {
		case openapi.RuleUnclassified:
			unclassified++
			if f.File != path || f.Line < 1 {
				t.Fatalf("finding without the spec's file and line: %+v", f)
			}
			if got := sourceLineOf(s.Data, f.Line); !strings.Contains(strings.ToLower(got), strings.ToLower(strings.Fields(f.Message)[0])) {
				t.Fatalf("line %d of %s is %q, not the operation of %q", f.Line, filepath.Base(path), got, f.Message)
			}
		case openapi.RuleUnknown:
			unknown++
		}
	}
	if unclassified != want || unknown != 1 {
		t.Errorf("%s: %d unclassified (want %d), %d unknown (want 1)", path, unclassified, want, unknown)
	}
}

func sourceLineOf(data []byte, n int) string {
	lines := strings.SplitN(string(data), "\n", n+1)
	if n-1 < len(lines) {
		return lines[n-1]
	}
	return ""
}

// duplicateKey finds a mapping with a key twice (JSON decoders would
// silently keep the last one).
func duplicateKey(n *yaml.Node) string {
	if n.Kind == yaml.MappingNode {
		seen := make(map[string]bool, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			if seen[k] {
				return fmt.Sprintf("%q at line %d", k, n.Content[i].Line)
			}
			seen[k] = true
		}
	}
	for _, c := range n.Content {
		if d := duplicateKey(c); d != "" {
			return d
		}
	}
	return ""
}

// addedLinesOnly checks that out is in with lines inserted: every line of
// in appears in out, in order, and nothing else changed.
func addedLinesOnly(in, out []byte) error {
	a := bytes.SplitAfter(in, []byte("\n"))
	b := bytes.SplitAfter(out, []byte("\n"))
	i := 0
	for _, l := range b {
		if i < len(a) && bytes.Equal(l, a[i]) {
			i++
		}
	}
	if i < len(a) {
		return fmt.Errorf("input line %d %q is missing or changed in the output", i+1, a[i])
	}
	return nil
}

func mustRead(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
