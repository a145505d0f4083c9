package cli_test

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/cli"
	"github.com/retryspec/retryspec/contract/rules"
)

// TestExplainListAgrees: `explain --list` and `explain RULE` state the same
// severity for every rule, both from the catalog, and a rule whose severity
// depends on the value says so in both.
func TestExplainListAgrees(t *testing.T) {
	run := func(args ...string) string {
		var out, errOut bytes.Buffer
		if code := cli.Main(args, &cli.IO{Out: &out, Err: &errOut, Getenv: func(string) string { return "" }}); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut.String())
		}
		return out.String()
	}
	listed := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(run("explain", "--list")), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			t.Fatalf("explain --list line %q has no severity", line)
		}
		listed[f[0]] = f[1]
	}
	head := regexp.MustCompile("^(\\S+) \\(([a-z/]+), checked by `")
	escalating := 0
	for _, r := range rules.Catalog() {
		m := head.FindStringSubmatch(run("explain", r.ID))
		if m == nil || m[1] != r.ID {
			t.Errorf("explain %s: first line does not name the rule and its severity", r.ID)
			continue
		}
		if listed[r.ID] != m[2] {
			t.Errorf("%s: explain --list says %q, explain says %q", r.ID, listed[r.ID], m[2])
		}
		if m[2] != r.SeverityText() {
			t.Errorf("%s: explain says %q, the catalog %q", r.ID, m[2], r.SeverityText())
		}
		if r.Escalates != 0 {
			escalating++
			if !strings.Contains(m[2], r.Escalates.String()) {
				t.Errorf("%s escalates to %s, explain says %q", r.ID, r.Escalates, m[2])
			}
		}
	}
	if escalating == 0 {
		t.Error("no rule escalates: retry/too-many-attempts should (warning at 4-5 attempts, error above)")
	}
}
