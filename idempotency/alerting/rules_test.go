package alerting

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/retryspec/retryspec/contract"
)

func TestRules(t *testing.T) {
	src, err := os.ReadFile("../../examples/payouts/retryspec.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// A hostile API name must stay a YAML string.
	src = []byte(strings.Replace(string(src), "name: Lumapay", `name: "Luma'pay\": {{ x }} - alert: Fake"`, 1))
	c, err := contract.Parse("retryspec.yaml", src)
	if err != nil {
		t.Fatal(err)
	}
	out, err := Rules(c)
	if err != nil {
		t.Fatal(err)
	}
	var f ruleFile
	if err := yaml.Unmarshal(out, &f); err != nil {
		t.Fatalf("not YAML: %v\n%s", err, out)
	}
	if len(f.Groups) != 1 || len(f.Groups[0].Rules) != 5 {
		t.Fatalf("want one group of five rules:\n%s", out)
	}
	alerts := map[string]string{}
	for _, r := range f.Groups[0].Rules {
		alerts[r.Alert] = r.Expr
	}
	if !strings.Contains(alerts[AlertStoreFailures], StoreFailures) || !strings.Contains(alerts[AlertAsyncCommit], AsyncCommitStarts) {
		t.Errorf("no alert on store failures or asynchronous commits: %v", alerts)
	}
	known := map[string]bool{}
	for _, m := range Metrics {
		known[m.Name] = true
	}
	docs, err := os.ReadFile("../../docs/alerts.md")
	if err != nil {
		t.Fatal(err)
	}
	metricRE := regexp.MustCompile(`retryspec_[a-z_]+`)
	for _, r := range f.Groups[0].Rules {
		for _, m := range metricRE.FindAllString(r.Expr, -1) {
			if !known[m] {
				t.Errorf("%s watches %s, which the middleware does not export", r.Alert, m)
			}
		}
		anchor := r.Annotations["runbook_url"][strings.Index(r.Annotations["runbook_url"], "#")+1:]
		found := false
		for _, line := range strings.Split(string(docs), "\n") {
			if h, ok := strings.CutPrefix(line, "## "); ok && strings.ReplaceAll(strings.ToLower(h), " ", "-") == anchor {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: docs/alerts.md has no section for #%s", r.Alert, anchor)
		}
		if !strings.Contains(r.Annotations["summary"], `Luma'pay": {{"{{"}} x {{"}}"}} - alert: Fake`) {
			t.Errorf("API name not kept as text: %q", r.Annotations["summary"])
		}
	}
	if dup := f.Groups[0].Rules[0]; dup.Alert != AlertDuplicateEffects || !strings.HasSuffix(dup.Expr, "> 0") || dup.For != "" {
		t.Errorf("the duplicate-effect alert must fire on any increase, at once: %+v", dup)
	}
}
