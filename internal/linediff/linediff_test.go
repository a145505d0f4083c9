package linediff

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRemoved(t *testing.T) {
	for _, tc := range []struct {
		name, a, b string
		want       []string
	}{
		{"only added", "a\nb\nc", "a\nx\nb\nc\ny", nil},
		{"one changed", "a\n  responses: *std\nc", "a\n  responses:\n    '200': ok\nc", []string{"responses: *std"}},
		{"one removed", "a\nb\nc", "a\nc", []string{"b"}},
		{"all different", "a\nb", "c", []string{"a", "b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Removed(strings.Split(tc.a, "\n"), strings.Split(tc.b, "\n"))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Removed (-want +got):\n%s", diff)
			}
		})
	}
}
