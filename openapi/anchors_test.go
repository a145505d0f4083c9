package openapi

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/internal/linediff"
	"go.yaml.in/yaml/v3"
)

// TestMergedAnchorsChangeOnlyThePlan (issue 13 item 5): operations share
// their responses and parameters through YAML anchors, defined in planned
// operations and aliased by planned and unplanned ones. The merged spec,
// read back with aliases resolved, gives every keyed operation its key
// header, 409s and replay header, and every operation outside the plan
// reads exactly what it read before. Only the lines holding the anchors
// and aliases involved change (anchors.go says how); every other line of
// the input is in the output, in order.
func TestMergedAnchorsChangeOnlyThePlan(t *testing.T) {
	c, err := contract.Load("testdata/contract.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s, err := Load("testdata/anchors.yaml", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := NewPlan(c, s)
	merged, err := Merged(s, p)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "anchors.merged.yaml", merged)
	if _, err := Parse("merged.yaml", merged, LoadOptions{}); err != nil {
		t.Fatalf("the merged spec does not load: %v\n%s", err, merged)
	}

	var in, out map[string]any
	if err := yaml.Unmarshal(s.Data, &in); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(merged, &out); err != nil {
		t.Fatal(err)
	}
	// Outside the plan: GET /v1/transfers (effect read), GET /v1/other
	// (not in the contract); the archive POST gains only x-idempotency.
	for _, op := range [][2]string{{"/v1/transfers", "get"}, {"/v1/other", "get"}, {"/v1/reports/{id}/archive", "post"}, {"/v1/refunds", "get"}} {
		before, after := specOperation(in, op), specOperation(out, op)
		if op[1] == "post" {
			if after["x-idempotency"] == nil {
				t.Errorf("POST %s lacks x-idempotency", op[0])
			}
			delete(after, "x-idempotency")
		}
		if d := cmp.Diff(before, after); d != "" {
			t.Errorf("%s %s changed (-input +merged):\n%s", op[1], op[0], d)
		}
	}
	// In the plan: both keyed operations get everything, the shared
	// values notwithstanding.
	for _, op := range [][2]string{{"/v1/transfers", "post"}, {"/v1/transfers/{id}", "delete"}, {"/v1/refunds", "post"}} {
		o := specOperation(out, op)
		params, _ := o["parameters"].([]any)
		hasKey := false
		for _, p := range params {
			if m, _ := p.(map[string]any); m["name"] == "Idempotency-Key" {
				hasKey = true
			}
		}
		responses, _ := o["responses"].(map[string]any)
		created, _ := responses["201"].(map[string]any)
		headers, _ := created["headers"].(map[string]any)
		if !hasKey || responses["409"] == nil || headers["Idempotent-Replayed"] == nil || o["x-idempotency"] == nil {
			t.Errorf("%s %s lacks the key header, the 409, the replay header or x-idempotency: %v", op[1], op[0], o)
		}
	}

	// The lines that change: the anchors taken off, the aliases written
	// out (one of each moves the anchor on).
	changed := linediff.Removed(strings.Split(string(s.Data), "\n"), strings.Split(string(merged), "\n"))
	want := []string{"responses: &std", "responses: *std", "parameters: &idp", "responses: *std # the same as POST", "parameters: *idp", `"201": *ok`}
	if d := cmp.Diff(want, changed); d != "" {
		t.Errorf("input lines changed in the merged spec (-want +got):\n%s", d)
	}

	// The overlay cannot hold a copy: what goes into shared values is
	// left out of it, and the plan says so.
	overlay := string(OverlayText(Overlay(c, s, p), false))
	if strings.Contains(overlay, "responses") && strings.Contains(overlay, "'409'") {
		t.Errorf("the overlay adds to a shared value:\n%s", overlay)
	}
	notes := 0
	for _, n := range p.Skipped {
		if strings.Contains(n.Message, "its own copy") {
			notes++
		}
	}
	if notes == 0 {
		t.Errorf("no note says the shared values were copied: %+v", p.Skipped)
	}
}

// TestMergedAnchorsLeftAloneWhenNotCopyable: an alias inside brackets
// cannot be written out in place; the addition is left out with a note,
// as before, and nothing else changes.
func TestMergedAnchorsLeftAloneWhenNotCopyable(t *testing.T) {
	c, err := contract.Load("testdata/contract.yaml")
	if err != nil {
		t.Fatal(err)
	}
	spec := "openapi: 3.0.3\ninfo: {title: t, version: '1'}\nx-std: &std {'201': {description: ok}}\npaths:\n" +
		"  /v1/transfers: {post: {operationId: a, responses: *std}, get: {operationId: b, responses: *std}}\n"
	s, err := Parse("flow.yaml", []byte(spec), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := NewPlan(c, s)
	merged, err := Merged(s, p)
	if err != nil {
		t.Fatal(err)
	}
	var in, out map[string]any
	yaml.Unmarshal(s.Data, &in)
	yaml.Unmarshal(merged, &out)
	if d := cmp.Diff(specOperation(in, [2]string{"/v1/transfers", "get"}), specOperation(out, [2]string{"/v1/transfers", "get"})); d != "" {
		t.Errorf("GET changed:\n%s", d)
	}
	found := false
	for _, n := range p.Skipped {
		found = found || strings.Contains(n.Message, "nothing is added to it")
	}
	if !found {
		t.Errorf("no note for the addition left out: %+v", p.Skipped)
	}
}

func specOperation(spec map[string]any, op [2]string) map[string]any {
	paths, _ := spec["paths"].(map[string]any)
	item, _ := paths[op[0]].(map[string]any)
	o, _ := item[op[1]].(map[string]any)
	return o
}

// FuzzMergedKeepsUnplannedOperations: whatever the spec (anchors, aliases,
// flow or block style), every operation the contract neither keys nor
// marks unsafe reads the same in the merged spec as in the input, with
// aliases resolved.
func FuzzMergedKeepsUnplannedOperations(f *testing.F) {
	for _, p := range []string{"testdata/anchors.yaml", "testdata/small.yaml"} {
		f.Add([]byte(mustRead(f, p)))
	}
	f.Add([]byte("openapi: 3.0.3\ninfo: {title: t, version: '1'}\nx-r: &r {'201': {description: ok}}\npaths:\n  /v1/transfers:\n    post:\n      responses: *r\n    get:\n      responses: *r\n"))
	c, err := contract.Load("testdata/contract.yaml")
	if err != nil {
		f.Fatal(err)
	}
	planned := map[string]bool{}
	for _, e := range c.Endpoints {
		if e.Keyed() || e.UnsafeToRetry != "" {
			planned[shape(e.Method, e.Path)] = true
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("spec.yaml", data, LoadOptions{SkipValidation: true})
		if err != nil {
			return
		}
		merged, err := Merged(s, NewPlan(c, s))
		if err != nil {
			return
		}
		var in, out map[string]any
		if yaml.Unmarshal(data, &in) != nil {
			return
		}
		if err := yaml.Unmarshal(merged, &out); err != nil {
			return // FuzzMerge's finding, not this one's
		}
		for _, op := range s.Operations() {
			if planned[shape(op.Method, op.Path)] {
				continue
			}
			key := [2]string{op.Path, strings.ToLower(op.Method)}
			if d := cmp.Diff(specOperation(in, key), specOperation(out, key)); d != "" {
				t.Fatalf("%s changed in the merged spec (-input +merged):\n%s\n--- input\n%s\n--- merged\n%s", op.Name(), d, data, merged)
			}
		}
	})
}
