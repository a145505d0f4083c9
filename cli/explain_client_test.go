package cli_test

import (
	"strings"
	"testing"

	"github.com/retryspec/retryspec/cli"
	"github.com/retryspec/retryspec/verify/client"
)

// TestExplainClientGates: every verify client gate explains itself (what it
// proves, its fix, its sources and both examples) and --list names it.
func TestExplainClientGates(t *testing.T) {
	sys, list, errOut := cli.TestIO()
	if code := cli.Main([]string{"explain", "--list"}, sys); code != 0 {
		t.Fatalf("explain --list: exit %d: %s", code, errOut.String())
	}
	for _, g := range client.Gates {
		r := g.Doc
		sys, out, errOut := cli.TestIO()
		if code := cli.Main([]string{"explain", r.ID}, sys); code != 0 {
			t.Errorf("explain %s: exit %d: %s", r.ID, code, errOut)
			continue
		}
		flat := strings.Join(strings.Fields(out.String()), " ")
		for _, want := range []string{r.ID + " (error, checked by `retryspec verify client`)", "Why:", "Fails the gate:", "Holds:",
			strings.Join(strings.Fields(r.Rationale), " "), strings.Join(strings.Fields(r.Fix), " "), r.Sources[0].URL} {
			if !strings.Contains(flat, want) {
				t.Errorf("explain %s lacks %.60q", r.ID, want)
			}
		}
		if !strings.Contains(list.String(), r.ID+" ") {
			t.Errorf("explain --list lacks %s", r.ID)
		}
	}
}
