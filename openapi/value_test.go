package openapi

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestYAMLTextInPieces holds yamlText, which encodes a long list item by
// item, to the text one Encode of the whole value gives.
func TestYAMLTextInPieces(t *testing.T) {
	action := func(i int) Obj {
		return obj("target", fmt.Sprintf("$.paths['/v1/things/%d'].post", i),
			"description", "line one\nline two\n\nafter a blank line",
			"update", obj("parameters", []any{obj("name", "Idempotency-Key", "in", "header", "required", true)},
				"responses", obj("409", obj("description", "Conflict: - not a list", "content", []any{"a", []any{"b", "c"}, obj()})),
			),
		)
	}
	var actions []any
	for i := range 5 {
		actions = append(actions, action(i))
	}
	for _, v := range []Obj{
		obj("overlay", "1.0.0", "info", obj("title", "t", "version", "1"), "actions", actions),
		obj("actions", []any{"- dash", "plain", 409, true, []any{}, obj()}),
		obj("empty", []any{}, "one", []any{action(0)}, "nested", []any{[]any{"a", "b"}, []any{"c"}}),
	} {
		for _, unit := range []int{2, 4} {
			if diff := cmp.Diff(string(yamlEncode(v, unit)), string(yamlText(v, unit))); diff != "" {
				t.Errorf("indent %d: yamlText differs from one Encode (-want +got):\n%s", unit, diff)
			}
		}
	}
}
