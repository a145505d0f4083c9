package schema

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"

	"github.com/retryspec/retryspec/contract"
)

func compile(t *testing.T) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(JSON()))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("retryspec.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("retryspec.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// instance converts YAML to the JSON value the schema sees, as an editor
// with a YAML language server does.
func instance(t *testing.T, path string) any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	j, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
	if err != nil {
		t.Fatal(err)
	}
	return inst
}

func root() string { return filepath.Join("..", "..") }

func glob(t *testing.T, pattern string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root(), func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root(), p)
		if ok, _ := filepath.Match(pattern, filepath.Base(p)); ok && !d.IsDir() && (strings.HasPrefix(rel, "examples") || strings.HasPrefix(rel, "testdata")) {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestValidContracts: every contract the loader accepts in examples/ and
// testdata/ validates against the schema.
func TestValidContracts(t *testing.T) {
	s := compile(t)
	n := 0
	for _, p := range glob(t, "*.yaml") {
		if strings.Contains(p, "invalid") || strings.Contains(p, "fuzz") {
			continue
		}
		if _, err := contract.Load(p); err != nil {
			continue // not a contract, or deliberately broken: see TestInvalidContracts
		}
		n++
		if err := s.Validate(instance(t, p)); err != nil {
			t.Errorf("%s loads but fails the schema: %v", p, err)
		}
	}
	if n < 60 {
		t.Errorf("validated only %d contracts; expected the examples and every rule's testdata", n)
	}
	// The starter contract too.
	tmp := filepath.Join(t.TempDir(), "retryspec.yaml")
	os.WriteFile(tmp, contract.Starter(contract.StarterOptions{}), 0o644)
	if err := s.Validate(instance(t, tmp)); err != nil {
		t.Errorf("the starter contract fails the schema: %v", err)
	}
}

// TestInvalidContracts: each file in testdata/invalid is rejected by the
// loader and by the schema, except those whose fault only the loader can
// see (a rule the schema language cannot express) marked "# schema: ok".
func TestInvalidContracts(t *testing.T) {
	s := compile(t)
	files := glob(t, "*.yaml")
	n := 0
	for _, p := range files {
		if filepath.Base(filepath.Dir(p)) != "invalid" {
			continue
		}
		n++
		if _, err := contract.Load(p); err == nil {
			t.Errorf("%s: the loader accepts it", p)
		}
		data, _ := os.ReadFile(p)
		schemaBlind := bytes.Contains(data, []byte("# schema: ok"))
		err := s.Validate(instance(t, p))
		if err == nil && !schemaBlind {
			t.Errorf("%s: the schema accepts it", p)
		}
	}
	if n < 10 {
		t.Errorf("only %d invalid contracts", n)
	}
}

// TestEnumsMatchLoader keeps the schema's enumerations equal to the
// loader's, so an editor never suggests a value check rejects.
func TestEnumsMatchLoader(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(JSON(), &doc); err != nil {
		t.Fatal(err)
	}
	get := func(path ...string) []string {
		var v any = doc
		for _, k := range path {
			v = v.(map[string]any)[k]
		}
		var out []string
		for _, e := range v.(map[string]any)["enum"].([]any) {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	idem := []string{"properties", "idempotency", "properties"}
	retry := []string{"properties", "retry", "properties"}
	tests := []struct {
		path []string
		want []string
	}{
		{append(idem, "header_value"), contract.HeaderValues},
		{append(idem, "key_source"), contract.KeySources},
		{append(idem, "scope"), contract.Scopes},
		{append(idem, "derivation", "items", "properties", "kind"), contract.DerivationKinds},
		{append(idem, "fingerprint"), contract.Fingerprints},
		{append(idem, "claim", "properties", "store"), contract.Stores},
		{append(idem, "claim", "properties", "mechanism"), contract.Mechanisms},
		{append(idem, "in_flight", "properties", "response"), contract.InFlightModes},
		{append(idem, "in_flight", "properties", "takeover"), contract.Takeovers},
		{append(idem, "stored_failures"), contract.FailurePolicies},
		{append(idem, "stored_response"), contract.StoredResponses},
		{append(idem, "after_window"), contract.AfterWindows},
		{[]string{"properties", "endpoints", "items", "properties", "effect"}, contract.Effects},
		{[]string{"properties", "endpoints", "items", "properties", "key"}, contract.KeyModes},
		{append(retry, "connection_errors", "items"), contract.ConnErrors},
		{append(retry, "backoff", "properties", "jitter"), contract.Jitters},
		{append(retry, "deadline"), contract.Deadlines},
		{append(retry, "budget", "properties", "kind"), contract.BudgetKinds},
		{append(retry, "stacking", "items"), contract.StackingLayers},
		{[]string{"properties", "sdk", "properties", "languages", "items"}, contract.Languages},
	}
	for _, tt := range tests {
		got := get(slices.Clone(tt.path)...)
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: schema %v, loader %v", strings.Join(tt.path, "."), got, tt.want)
		}
	}
}

// TestEndpointLimitMatchesLoader: an editor must not accept a contract the
// loader refuses for its size, nor flag one it accepts.
func TestEndpointLimitMatchesLoader(t *testing.T) {
	var doc struct {
		Properties struct {
			Endpoints struct {
				MaxItems int `json:"maxItems"`
			} `json:"endpoints"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(JSON(), &doc); err != nil {
		t.Fatal(err)
	}
	if got := doc.Properties.Endpoints.MaxItems; got != contract.MaxEndpoints {
		t.Errorf("schema endpoints.maxItems %d, loader %d", got, contract.MaxEndpoints)
	}
}

// TestInvalidFilesSayWhy: each invalid contract's first line names the
// message the loader must give, and the loader gives it.
func TestInvalidFilesSayWhy(t *testing.T) {
	for _, p := range glob(t, "*.yaml") {
		if filepath.Base(filepath.Dir(p)) != "invalid" {
			continue
		}
		f, _ := os.Open(p)
		first, _ := bufio.NewReader(f).ReadString('\n')
		f.Close()
		want, ok := strings.CutPrefix(strings.TrimSpace(first), "# want: ")
		if !ok {
			t.Errorf("%s: first line is not '# want: message'", p)
			continue
		}
		_, err := contract.Load(p)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want it to contain %q", p, err, want)
		}
	}
}
