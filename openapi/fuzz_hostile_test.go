package openapi

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/internal/testenv"
)

// watchdog panics (failing the fuzz run with the input) when the call
// burns more than testenv.HangCPU of CPU time: a hang is a finding too.
// CPU time, not wall time: a loaded machine must not turn a slow input
// into a finding.
func watchdog(what string, data any) func() {
	return testenv.Watchdog(testenv.HangCPU, func() string { return fmt.Sprintf("%s hangs on input:\n%q", what, data) })
}

var blankParams = regexp.MustCompile(`\{[^{}]*\}`)

// FuzzPathMatch: the path-template matcher as drift uses it. A spec with
// one operation POST specPath and a contract with one endpoint POST
// contractPath: drift calls the endpoint unknown, and the operation
// unclassified, exactly when the two paths differ other than in parameter
// names. Seeds: testdata/fuzz/FuzzPathMatch.
func FuzzPathMatch(f *testing.F) {
	for _, p := range [][2]string{
		{"/v1/transfers/{id}", "/v1/transfers/{transfer_id}"},
		{"/v1/transfers/{id}", "/v1/transfers/{id}/"},
		{"/v1/a", "/v1/A"},
		{"/v1/{a}{b}", "/v1/{x}{y}"},
		{"/v1/{a}/x", "/v1/{a}x"},
		{"/v1/transfers", "/v1/transfers/{id}"},
	} {
		f.Add(p[0], p[1])
	}
	base, err := contract.Parse("retryspec.yaml", contract.Starter(contract.StarterOptions{}))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, contractPath, specPath string) {
		if _, p, err := contract.ParseOperation("POST " + contractPath); err != nil || p != contractPath {
			return
		}
		if !utf8.ValidString(specPath) {
			return // JSON text cannot carry it; the YAML loader rejects it
		}
		key, _ := json.Marshal(specPath)
		doc := fmt.Sprintf(`{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":{%s:{"post":{"responses":{"200":{"description":"ok"}}}}}}`, key)
		s, err := Parse("spec.json", []byte(doc), LoadOptions{SkipValidation: true})
		if err != nil {
			return
		}
		if ops := s.Operations(); len(ops) != 1 || ops[0].Path != specPath {
			t.Fatalf("spec path %q read as %+v", specPath, ops)
		}
		c := *base
		c.Endpoints = []contract.Endpoint{{Operation: "POST " + contractPath, Method: "POST", Path: contractPath, Effect: "create", Key: "required"}}
		defer watchdog("DriftSpec", [2]string{contractPath, specPath})()
		var unknown, unclassified bool
		for _, fd := range DriftSpec(&c, s) {
			switch fd.Rule {
			case RuleUnknown:
				unknown = true
			case RuleUnclassified:
				unclassified = true
			}
		}
		same := blankParams.ReplaceAllString(contractPath, "{}") == blankParams.ReplaceAllString(specPath, "{}")
		if unknown == same || unclassified == same {
			t.Fatalf("contract %q vs spec %q: same shape %v, but unknown=%v unclassified=%v", contractPath, specPath, same, unknown, unclassified)
		}
	})
}

// FuzzOverlay: the overlay writer. For any spec that loads, the overlay
// comes out the same twice, its YAML and JSON forms say the same thing,
// every action targets a node that exists in the input, and the input with
// the overlay applied is the merged spec. Seeds: testdata/fuzz/FuzzOverlay
// and the OpenAPI files of the hostile corpus.
func FuzzOverlay(f *testing.F) {
	for _, p := range []string{"testdata/small.yaml", "testdata/small.json"} {
		f.Add([]byte(mustRead(f, p)))
	}
	hostile, _ := filepath.Glob(filepath.Join("..", "testdata", "hostile", "openapi-*"))
	for _, p := range hostile {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	c, err := contract.Load("testdata/contract.yaml")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer watchdog("Overlay", data)()
		var pre yaml.Node
		if yaml.Unmarshal(data, &pre) != nil || expanded(&pre, 0) > 50_000 {
			// Alias expansion is FuzzMerge's and the hostile corpus's
			// subject; here it would only make every run slow.
			return
		}
		s, err := Parse("spec.yaml", data, LoadOptions{})
		if err != nil {
			return
		}
		p := NewPlan(c, s)
		ov := Overlay(c, s, p)
		text, asJSON := OverlayText(ov, false), OverlayText(ov, true)
		if again := OverlayText(Overlay(c, s, NewPlan(c, s)), false); string(again) != string(text) {
			t.Fatalf("two overlays of one spec differ:\n%s", cmp.Diff(string(text), string(again)))
		}
		var fromYAML, fromJSON any
		if err := yaml.Unmarshal(text, &fromYAML); err != nil {
			t.Fatalf("overlay YAML does not parse: %v\n%s", err, text)
		}
		if err := json.Unmarshal(asJSON, &fromJSON); err != nil {
			t.Fatalf("overlay JSON does not parse: %v\n%s", err, asJSON)
		}
		if diff := cmp.Diff(normalize(fromYAML), normalize(fromJSON)); diff != "" {
			t.Fatalf("overlay YAML and JSON differ:\n%s", diff)
		}
		merged, err := Merged(s, p)
		if err != nil {
			return // reported to the user as an error, not a crash
		}
		var applied, m yaml.Node
		if err := yaml.Unmarshal(s.Data, &applied); err != nil || len(applied.Content) == 0 {
			return
		}
		applyOverlay(t, applied.Content[0], text)
		if err := yaml.Unmarshal(merged, &m); err != nil {
			t.Fatalf("merged spec does not parse: %v", err)
		}
		var want, got any
		if m.Decode(&want) != nil || applied.Decode(&got) != nil {
			return
		}
		if diff := cmp.Diff(normalize(want), normalize(got)); diff != "" {
			t.Fatalf("input + overlay differs from the merged spec (-merged +applied):\n%s", changedLines(diff))
		}
	})
}

// normalize makes YAML- and JSON-decoded values comparable: numbers as
// float64, maps with string keys.
func normalize(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = normalize(x)
			if k == "parameters" {
				// OpenAPI parameters are identified by (in, name), not by
				// place: the merged spec may put the key header elsewhere
				// than the overlay's append.
				if list, ok := out[k].([]any); ok {
					sort.SliceStable(list, func(i, j int) bool { return paramID(list[i]) < paramID(list[j]) })
				}
			}
		}
		return out
	case map[any]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[fmt.Sprint(k)] = normalize(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = normalize(x)
		}
		return out
	case int:
		return float64(v)
	case int64:
		return float64(v)
	case uint64:
		return float64(v)
	}
	return v
}

// expanded counts nodes with aliases followed, stopping past 50,000.
func expanded(n *yaml.Node, count int) int {
	if n == nil || count > 50_000 {
		return count
	}
	if n.Kind == yaml.AliasNode {
		return expanded(n.Alias, count+1)
	}
	count++
	for _, c := range n.Content {
		count = expanded(c, count)
	}
	return count
}

// changedLines keeps the - and + lines of a cmp.Diff, clipped.
func changedLines(diff string) string {
	var out []string
	for _, l := range strings.Split(diff, "\n") {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "-") || strings.HasPrefix(t, "+") {
			if len(t) > 400 {
				t = t[:400] + "…"
			}
			out = append(out, t)
		}
	}
	if len(out) > 20 {
		out = out[:20]
	}
	return strings.Join(out, "\n")
}

func paramID(p any) string {
	m, _ := p.(map[string]any)
	return fmt.Sprint(m["in"], "\x00", m["name"], "\x00", m["$ref"])
}
