package openapi

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/retryspec/retryspec/contract"
	"go.yaml.in/yaml/v3"
)

// applyOverlay applies an overlay to a document tree as Overlay 1.0
// §4.4.3 says: an update on an object is merged into it, an update on an
// array is one entry appended to it. Targets are parsed in the subset of
// RFC 9535 that jsonPath writes (member names only), so this checks that
// the overlay and the merged spec say the same thing.
func applyOverlay(t *testing.T, root *yaml.Node, overlay []byte) {
	t.Helper()
	var ov struct {
		Actions []struct {
			Target string
			Update yaml.Node
		}
	}
	if err := yaml.Unmarshal(overlay, &ov); err != nil {
		t.Fatal(err)
	}
	for _, a := range ov.Actions {
		keys, err := parseJSONPath(a.Target)
		if err != nil {
			t.Fatalf("target %q: %v", a.Target, err)
		}
		n := root
		for _, k := range keys {
			if n = mapGet(n, k); n == nil {
				t.Fatalf("target %q selects nothing", a.Target)
			}
		}
		switch n.Kind {
		case yaml.MappingNode:
			mergeInto(n, &a.Update)
		case yaml.SequenceNode:
			u := a.Update
			n.Content = append(n.Content, &u)
		default:
			t.Fatalf("target %q selects a scalar", a.Target)
		}
	}
}

func mergeInto(dst, src *yaml.Node) {
	for i := 0; i+1 < len(src.Content); i += 2 {
		k, v := src.Content[i], src.Content[i+1]
		if old := mapGet(dst, k.Value); old != nil && old.Kind == yaml.MappingNode && v.Kind == yaml.MappingNode {
			mergeInto(old, v)
			continue
		}
		dst.Content = append(dst.Content, k, v)
	}
}

func sortParameters(v any) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if list, ok := e.([]any); ok && k == "parameters" {
				sort.Slice(list, func(i, j int) bool { return fmt.Sprint(list[i]) < fmt.Sprint(list[j]) })
			}
			sortParameters(e)
		}
	case []any:
		for _, e := range x {
			sortParameters(e)
		}
	}
}

// parseJSONPath is the inverse of jsonPath.
func parseJSONPath(p string) ([]string, error) {
	if !strings.HasPrefix(p, "$") {
		return nil, fmt.Errorf("does not start with $")
	}
	var keys []string
	rest := p[1:]
	for rest != "" {
		switch {
		case strings.HasPrefix(rest, "['"):
			var b strings.Builder
			i := 2
			for ; i < len(rest) && rest[i] != '\''; i++ {
				if rest[i] == '\\' {
					i++
				}
				b.WriteByte(rest[i])
			}
			if !strings.HasPrefix(rest[i:], "']") {
				return nil, fmt.Errorf("unterminated name at %q", rest)
			}
			keys = append(keys, b.String())
			rest = rest[i+2:]
		case strings.HasPrefix(rest, "."):
			end := strings.IndexAny(rest[1:], ".[")
			if end < 0 {
				end = len(rest) - 1
			}
			keys = append(keys, rest[1:1+end])
			rest = rest[1+end:]
		default:
			return nil, fmt.Errorf("unexpected %q", rest)
		}
	}
	return keys, nil
}

func TestJSONPathRoundTrip(t *testing.T) {
	for _, keys := range [][]string{nil, {"paths", "/v1/a/{id}", "post"}, {"x-retry"}, {"a'b\\c", "_x9", "9x", "é"}} {
		got, err := parseJSONPath(jsonPath(keys))
		if err != nil || !cmp.Equal(got, keys, cmp.Comparer(func(a, b []string) bool { return strings.Join(a, "\x00") == strings.Join(b, "\x00") })) {
			t.Errorf("%q -> %q -> %q, %v", keys, jsonPath(keys), got, err)
		}
	}
	if got := jsonPath([]string{"paths", "/v1/x", "post", "x-idempotency"}); got != "$.paths['/v1/x'].post['x-idempotency']" {
		t.Errorf("jsonPath = %s", got)
	}
}

// TestOverlayMatchesMerged: the input with the overlay applied is the same
// document as the merged spec, on the small specs and three real ones.
func TestOverlayMatchesMerged(t *testing.T) {
	type tc struct {
		name, path string
		c          func(*Spec) *contract.Contract
	}
	small := func(*Spec) *contract.Contract {
		c, err := contract.Load("testdata/contract.yaml")
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	cases := []tc{{"small.yaml", "testdata/small.yaml", small}, {"small.json", "testdata/small.json", small}}
	specs := realSpecs(t)
	for _, name := range []string{"resend-resend-openapi", "Adyen-adyen-openapi", "twilio-twilio-oai"} {
		set := settings[name]
		cases = append(cases, tc{name, specs[name], func(s *Spec) *contract.Contract { return contractFor(t, s, set.maxKeyLength, set.postKey) }})
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Load(tt.path, LoadOptions{SkipValidation: true})
			if err != nil {
				t.Fatal(err)
			}
			c := tt.c(s)
			p := NewPlan(c, s)
			merged, err := Merged(s, p)
			if err != nil {
				t.Fatal(err)
			}
			var applied yaml.Node
			if err := yaml.Unmarshal(s.Data, &applied); err != nil {
				t.Fatal(err)
			}
			applyOverlay(t, applied.Content[0], OverlayText(Overlay(c, s, p), false))
			var want, got any
			var m yaml.Node
			if err := yaml.Unmarshal(merged, &m); err != nil {
				t.Fatal(err)
			}
			if err := m.Decode(&want); err != nil {
				t.Fatal(err)
			}
			if err := applied.Decode(&got); err != nil {
				t.Fatal(err)
			}
			// JSON merges put a new parameter first in its array (no
			// existing line needs a comma); the overlay appends it.
			// Parameter order carries no meaning in OpenAPI.
			sortParameters(want)
			sortParameters(got)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("overlay applied differs from merged (-merged +applied):\n%.3000s", diff)
			}
		})
	}
}
