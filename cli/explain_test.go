package cli_test

import (
	"strings"
	"testing"

	"github.com/retryspec/retryspec/cli"
	"github.com/retryspec/retryspec/contract/rules"
	"github.com/retryspec/retryspec/verify/client"
)

// TestExplainEveryRule: every rule (and every verify client gate) explains
// itself with its summary, rationale, sources, fix and both examples, and
// --list names it.
func TestExplainEveryRule(t *testing.T) {
	sys, list, errOut := cli.TestIO()
	if code := cli.Main([]string{"explain", "--list"}, sys); code != 0 {
		t.Fatalf("explain --list: exit %d: %s", code, errOut.String())
	}
	for _, r := range append(rules.Catalog(), client.Rules()...) {
		sys, out, errOut := cli.TestIO()
		if code := cli.Main([]string{"explain", r.ID}, sys); code != 0 {
			t.Errorf("explain %s: exit %d: %s", r.ID, code, errOut)
			continue
		}
		text := out.String()
		flat := strings.Join(strings.Fields(text), " ")
		for _, want := range []string{r.ID, "Why:", "Fix:", strings.Join(strings.Fields(r.Rationale), " "), strings.Join(strings.Fields(r.Fix), " ")} {
			if !strings.Contains(flat, want) {
				t.Errorf("explain %s lacks %.60q", r.ID, want)
			}
		}
		for _, s := range r.Sources {
			if !strings.Contains(text, s.URL) {
				t.Errorf("explain %s lacks source %s", r.ID, s.URL)
			}
		}
		if !strings.Contains(list.String(), r.ID+" ") {
			t.Errorf("explain --list lacks %s", r.ID)
		}
	}
}
