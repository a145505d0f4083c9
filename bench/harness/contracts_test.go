package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/internal/testenv"
	"go.yaml.in/yaml/v3"
)

// The generated contracts must load cleanly, or every check timing would
// measure an error path.
func TestSyntheticContractLoads(t *testing.T) {
	for _, n := range []int{1, 7, 100} {
		ops := SyntheticOps(n)
		if len(ops) != n {
			t.Fatalf("SyntheticOps(%d) gave %d", n, len(ops))
		}
		c, err := contract.Parse("gen.yaml", ContractYAML(ops))
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		if len(c.Endpoints) != n {
			t.Errorf("n=%d: %d endpoints loaded", n, len(c.Endpoints))
		}
	}
}

func TestSyntheticSpecMatchesOps(t *testing.T) {
	ops := SyntheticOps(10)
	data, err := SyntheticSpec(ops)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		OpenAPI string                    `json:"openapi"`
		Paths   map[string]map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	n := 0
	for path, item := range doc.Paths {
		for k := range item {
			if k != "parameters" {
				n++
			}
		}
		if strings.Contains(path, "{id}") && item["parameters"] == nil {
			t.Errorf("%s declares no path parameter", path)
		}
	}
	if doc.OpenAPI != "3.0.3" || n != 10 {
		t.Errorf("spec has openapi %q and %d operations, want 3.0.3 and 10", doc.OpenAPI, n)
	}
}

// TestRealSpecContractAndTrim runs on the excerpt of Stripe's spec in
// openapi/testdata/realspecs (bench/run uses the whole spec).
func TestRealSpecContractAndTrim(t *testing.T) {
	spec := filepath.Join(testenv.RepoRoot(t), "openapi", "testdata", "realspecs", "stripe-openapi", "spec3.yaml")
	doc, err := loadSpecNode(spec)
	if err != nil {
		t.Fatal(err)
	}
	ops := flatten(SpecOps(doc))
	if len(ops) != 8 {
		t.Fatalf("%d operations read from the Stripe excerpt, want its 8", len(ops))
	}
	if _, err := contract.Parse("stripe.yaml", ContractYAML(ops)); err != nil {
		t.Fatalf("contract for every Stripe operation does not load: %v", err)
	}
	// Its paths hold 1, 2, 2 and 3 operations: 6 keeps the first three.
	trimmed, kept, err := TrimSpec(doc, 6)
	if err != nil {
		t.Fatal(err)
	}
	if len(kept) != 5 {
		t.Errorf("trimmed to %d operations, want 5 (whole paths, not above 6)", len(kept))
	}
	var back yaml.Node
	if err := yaml.Unmarshal(trimmed, &back); err != nil {
		t.Fatal(err)
	}
	if again := flatten(SpecOps(&back)); len(again) != len(kept) {
		t.Errorf("trimmed spec holds %d operations, TrimSpec reported %d", len(again), len(kept))
	}
	if mapValue(back.Content[0], "components") == nil {
		t.Error("trimmed spec lost its components")
	}
	// Trimming must not change the parsed original.
	if n := len(flatten(SpecOps(doc))); n != len(ops) {
		t.Errorf("TrimSpec changed the original: %d operations, was %d", n, len(ops))
	}
}

func TestMemTotal(t *testing.T) {
	if got := memTotal("MemFree: 1 kB\nMemTotal:       24684312 kB\n"); got != 24684312*1024 {
		t.Errorf("memTotal = %d", got)
	}
	if got := memTotal("garbage"); got != 0 {
		t.Errorf("memTotal(garbage) = %d", got)
	}
}

func TestGoModVersion(t *testing.T) {
	out := "bin/vale: go1.26.8\n\tpath\tgithub.com/vale-cli/vale/v3/cmd/vale\n\tmod\tgithub.com/vale-cli/vale/v3\tv3.22.0\th1:x=\n"
	if got := goModVersion(out); got != "github.com/vale-cli/vale/v3 v3.22.0" {
		t.Errorf("goModVersion = %q", got)
	}
}

func TestParseLoadAvg(t *testing.T) {
	if got := parseLoadAvg("3.52 2.10 1.00 4/512 12345\n"); got != 3.52 {
		t.Errorf("parseLoadAvg = %v", got)
	}
	if got := parseLoadAvg(""); got != -1 {
		t.Errorf("parseLoadAvg(empty) = %v", got)
	}
}

// The generated spec must be valid OpenAPI, or check --openapi measures
// its own error path.
func TestSyntheticSpecValidates(t *testing.T) {
	data, err := SyntheticSpec(SyntheticOps(12))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := openapi3.NewLoader().LoadFromData(data)
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Errorf("generated spec does not validate: %v", err)
	}
}

func TestDropOperation(t *testing.T) {
	var doc yaml.Node
	src := "paths:\n  /a:\n    get: {}\n    post: {}\n  /b:\n    parameters: []\n    delete: {}\n"
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatal(err)
	}
	if !dropOperation(&doc, Op{Method: "POST", Path: "/a"}) || !dropOperation(&doc, Op{Method: "DELETE", Path: "/b"}) {
		t.Fatal("an operation of the spec was not dropped")
	}
	if dropOperation(&doc, Op{Method: "PUT", Path: "/a"}) {
		t.Error("dropped an operation the spec does not have")
	}
	got := flatten(SpecOps(&doc))
	if want := []Op{{Method: "GET", Path: "/a"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("operations left %v, want %v (and /b gone with its last operation)", got, want)
	}
}
