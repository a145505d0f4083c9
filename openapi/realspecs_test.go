package openapi

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/contract"
	"go.yaml.in/yaml/v3"
)

// realSpecs lists the excerpts of real specs in testdata/realspecs (one
// per folder; testdata/realspecs/README.md says where each came from, how
// it was cut and under which licence). Unit tests read only these.
func realSpecs(t testing.TB) map[string]string {
	t.Helper()
	return specsIn(t, filepath.Join("testdata", "realspecs"))
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

// contractFor writes a contract for a real spec: the testdata contract's
// idempotency and retry sections with the endpoints the importer proposes,
// every POST keyed (postKey) and the given maximum key length.
func contractFor(t testing.TB, s *Spec, maxKeyLength int, postKey string) *contract.Contract {
	t.Helper()
	base, err := os.ReadFile("testdata/contract.yaml")
	if err != nil {
		t.Fatal(err)
	}
	head, rest, _ := strings.Cut(string(base), "endpoints:\n")
	_, tail, _ := strings.Cut(rest, "\nretry:\n")
	eps := Import(s)
	for i := range eps {
		if strings.HasPrefix(eps[i].Operation, "POST ") {
			eps[i].Key = postKey
		}
	}
	head = strings.Replace(head, "max_key_length: 255", fmt.Sprintf("max_key_length: %d", maxKeyLength), 1)
	src := head + string(EndpointsYAML(eps, filepath.Base(s.Path))) + "retry:\n" + tail
	c, err := contract.Parse("retryspec.yaml", []byte(src))
	if err != nil {
		t.Fatalf("generated contract does not load: %v", err)
	}
	return c
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

// settings fit each real spec's contract to what the spec already
// declares, so the merge tests see no contradictions: Resend's and Adyen's
// keys are optional, Resend's up to 256 characters.
var settings = map[string]struct {
	maxKeyLength int
	postKey      string
	// headersReused is how many operations already declare the header,
	// in the excerpt and in the whole spec.
	headersReused, fieldHeadersReused int
	// ops is how many state-changing operations the excerpt holds;
	// fieldOps is the whole spec's count (BenchmarkFieldRealSpecs).
	ops, fieldOps int
}{
	"stripe-openapi":              {255, "required", 0, 0, 5, 252},
	"github-rest-api-description": {255, "required", 0, 0, 11, 332},
	"resend-resend-openapi":       {256, "optional", 2, 2, 8, 58},
	"twilio-twilio-oai":           {255, "required", 0, 0, 3, 94},
	"Adyen-adyen-openapi":         {255, "optional", 3, 22, 5, 25},
}

func TestRealSpecsMerge(t *testing.T) {
	for name, path := range realSpecs(t) {
		t.Run(name, func(t *testing.T) {
			checkRealMerge(t, name, path, settings[name].headersReused)
		})
	}
}

// checkRealMerge merges the contract imported from a real spec into it and
// checks the result: lines only added, valid, no duplicate keys, existing
// 409s and key headers reused, and a second merge adds nothing.
func checkRealMerge(t testing.TB, name, path string, wantHeaders int) {
	t.Helper()
	s, err := Load(path, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := contractFor(t, s, settings[name].maxKeyLength, settings[name].postKey)
	p := NewPlan(c, s)
	if len(p.Findings) > 0 {
		t.Errorf("unexpected contradictions: %v", p.Findings)
	}
	out, err := Merged(s, p)
	if err != nil {
		t.Fatal(err)
	}
	if err := addedLinesOnly(s.Data, out); err != nil {
		t.Errorf("merged spec changes existing lines: %v", err)
	}
	m, err := Parse(path+" (merged)", out, LoadOptions{})
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
	if again := NewPlan(c, m); len(again.Edits) > 0 {
		t.Errorf("a second merge would add %d more edits, first %s %q", len(again.Edits), jsonPath(again.Edits[0].Target), again.Edits[0].Key)
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

// TestWriteContract writes the contract the tests use for one real spec,
// for timing the CLI by hand: RETRYSPEC_DUMP_SPEC=stripe-openapi
// RETRYSPEC_DUMP_TO=/tmp/stripe.retryspec.yaml go test -run TestWriteContract.
func TestWriteContract(t *testing.T) {
	name, to := os.Getenv("RETRYSPEC_DUMP_SPEC"), os.Getenv("RETRYSPEC_DUMP_TO")
	if name == "" || to == "" {
		t.Skip("set RETRYSPEC_DUMP_SPEC and RETRYSPEC_DUMP_TO to write a real spec's test contract")
	}
	s, err := Load(realSpecs(t)[name], LoadOptions{SkipValidation: true})
	if err != nil {
		t.Fatal(err)
	}
	set := settings[name]
	c := contractFor(t, s, set.maxKeyLength, set.postKey)
	if err := os.WriteFile(to, c.Source, 0o644); err != nil {
		t.Fatal(err)
	}
}
