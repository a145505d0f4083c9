package cli

import (
	"strings"
	"testing"

	"github.com/retryspec/retryspec/contract"
)

// TestAppendEndpoints: the entries land at the end of the list in the
// file's own indentation and line ends; every other byte is kept.
func TestAppendEndpoints(t *testing.T) {
	eps := []contract.StarterEndpoint{{Method: "POST", Path: "/v1/a", Effect: "create", Key: "required", Review: "likely: a guess"}}
	entry := func(indent, eol string) string {
		return strings.ReplaceAll(indent+"# head\n"+
			indent+`- operation: "POST /v1/a"   # review: likely: a guess`+"\n"+
			indent+`  effect: "create"`+"\n"+
			indent+`  key: "required"`+"\n"+
			indent+"  # external_calls: does the handler charge, email or call another system? [] if not\n", "\n", eol)
	}
	tests := []struct{ name, src, want string }{
		{"crlf, next section keeps its comment",
			"a: 1\r\nendpoints:\r\n  - operation: GET /x\r\n    effect: read\r\n\r\n# retry\r\nretry: {}\r\n",
			"a: 1\r\nendpoints:\r\n  - operation: GET /x\r\n    effect: read\r\n" + entry("  ", "\r\n") + "\r\n# retry\r\nretry: {}\r\n"},
		{"no final newline",
			"endpoints:\n- operation: GET /x",
			"endpoints:\n- operation: GET /x\n" + entry("", "\n")},
		{"empty value",
			"endpoints:   # later\nretry: {}\n",
			"endpoints:   # later\n" + entry("  ", "\n") + "retry: {}\n"},
		{"no endpoints key",
			"retryspec: 1\n",
			"retryspec: 1\n\nendpoints:\n" + entry("  ", "\n")},
		{"empty flow list",
			"endpoints: []\n",
			"endpoints:\n" + entry("  ", "\n")},
	}
	for _, tt := range tests {
		got, err := appendEndpoints([]byte(tt.src), eps, "# head\n")
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if string(got) != tt.want {
			t.Errorf("%s:\ngot  %q\nwant %q", tt.name, got, tt.want)
		}
	}
	for _, bad := range []string{"endpoints: [{operation: GET /x}]\n", "endpoints: 3\n", "- a\n", "x: &e []\nendpoints: *e\n"} {
		if _, err := appendEndpoints([]byte(bad), eps, "# head\n"); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
