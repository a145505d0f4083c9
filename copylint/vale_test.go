package copylint

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/internal/testenv"
)

// valeBinary finds Vale: $RETRYSPEC_VALE, then .ci/install-copy's cache
// folder ($RETRYSPEC_CACHE/bin, default ~/.cache/retryspec/bin), then PATH (where testenv decides: CI fails, a laptop skips).
func valeBinary(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("RETRYSPEC_VALE"); p != "" {
		return p
	}
	cache := os.Getenv("RETRYSPEC_CACHE")
	if home, err := os.UserHomeDir(); err == nil && cache == "" {
		cache = filepath.Join(home, ".cache", "retryspec")
	}
	if p := filepath.Join(cache, "bin", "vale"); cache != "" {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return testenv.LookPath(t, "vale")
}

// TestValeExportFindsTheSameClaims exports the style, runs the real Vale
// with it over planted claims and honest sentences, and compares the
// (line, rule) pairs with what the Go matcher finds.
func TestValeExportFindsTheSameClaims(t *testing.T) {
	vale := valeBinary(t)
	dir := t.TempDir()
	styles := filepath.Join(dir, "styles")
	if _, err := ExportVale(filepath.Join(styles, ValeStyle), nil); err != nil {
		t.Fatal(err)
	}
	ini := "StylesPath = styles\nMinAlertLevel = suggestion\n\n[*.md]\nBasedOnStyles = " + ValeStyle + "\n"
	if err := os.WriteFile(filepath.Join(dir, ".vale.ini"), []byte(ini), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join("testdata", "vale", "planted.md"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "planted.md"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(vale, "--no-wrap", "--output=JSON", "planted.md")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		if _, ok := err.(*exec.ExitError); !ok || len(out) == 0 {
			t.Fatalf("vale: %v\n%s", err, out)
		}
	}
	var alerts map[string][]struct {
		Check string
		Line  int
	}
	if err := json.Unmarshal(out, &alerts); err != nil {
		t.Fatalf("vale output: %v\n%s", err, out)
	}
	var got []string
	for _, a := range alerts["planted.md"] {
		got = append(got, ValeStyle+"."+ValeCheckRule(a.Check)+":"+itoa(a.Line))
	}
	var want []string
	for _, f := range LintSource(nil, "planted.md", src) {
		want = append(want, ValeStyle+"."+ValeRuleName(f.Rule)+":"+itoa(f.Line))
	}
	// Compared as sets: a rule exported in parts can alert twice on one
	// claim, and Go reports two claims of a line as two findings.
	got, want = uniqueSorted(got), uniqueSorted(want)
	if len(want) < 8 {
		t.Fatalf("planted file yields only %d findings: %v", len(want), want)
	}
	// Every rule Vale can express is planted at least once.
	for _, id := range valeExpressible() {
		if !strings.Contains(strings.Join(want, " "), ValeStyle+"."+ValeRuleName(id)+":") {
			t.Errorf("planted.md has no finding of %s; plant one", id)
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Vale with the exported style disagrees with retryspec (-retryspec +vale):\n%s", d)
	}
}

// valeExpressible are the rules the export must cover: every copy rule
// but the contract-aware one (it needs the contract's figures at lint
// time) and the two about suppression comments (Vale has its own).
func valeExpressible() []string {
	var ids []string
	for _, id := range RuleIDs() {
		switch id {
		case RuleContradicts, RuleSuppressionNoReason, RuleUnusedSuppression:
			continue
		}
		ids = append(ids, id)
	}
	return ids
}

// TestValeExportCoversEveryRule needs no Vale: one rule file per
// expressible rule, and no other; with a contract, one more per claim
// family the contract contradicts, and the checks Vale cannot carry are
// named.
func TestValeExportCoversEveryRule(t *testing.T) {
	c := prefilterContract(t)
	c.Idempotency.Header = "X-Request-Token"
	for _, tc := range []struct {
		c          *contract.Contract
		extra      []string
		notCarried []string
	}{
		{nil, nil, []string{"safe-to-retry", "keyless-retry", "whole-api-idempotent", "key-retention", "copy/retry-any-error (retry-status): compares the statuses", "endpoint-safe-to-retry: judged by the endpoint", "copy/contradicts-contract figures", "clause readings"}},
		{c, []string{"SafeToRetry.yml", "KeylessRetry.yml", "KeylessRetryPart2.yml", "WholeApiIdempotent.yml"}, []string{"key-retention", "copy/retry-any-error (retry-status): compares the statuses", "endpoint-safe-to-retry: judged by the endpoint", "an operation a keyless-retry claim spells out by method and path", "clause readings"}},
	} {
		dir := t.TempDir()
		notCarried, err := ExportVale(dir, tc.c)
		if err != nil {
			t.Fatal(err)
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var got, want []string
		for _, e := range entries {
			got = append(got, e.Name())
		}
		for _, id := range valeExpressible() {
			want = append(want, ValeRuleName(id)+".yml")
		}
		// The rules of more than valeTokensPerFile forms come in parts.
		want = append(want, "AbsoluteGuaranteePart2.yml", "AbsoluteGuaranteePart3.yml", "RetryAnyErrorPart2.yml")
		want = append(want, tc.extra...)
		sort.Strings(want)
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("contract %v: exported rule files (-want +got):\n%s", tc.c != nil, d)
		}
		all := strings.Join(notCarried, "\n")
		for _, n := range tc.notCarried {
			if !strings.Contains(all, n) {
				t.Errorf("contract %v: the checks not carried over do not name %q:\n%s", tc.c != nil, n, all)
			}
		}
		if len(notCarried) != len(tc.notCarried) {
			t.Errorf("contract %v: %d checks not carried over, want %d:\n%s", tc.c != nil, len(notCarried), len(tc.notCarried), all)
		}
	}
}

func uniqueSorted(xs []string) []string {
	sort.Strings(xs)
	out := xs[:0]
	for i, x := range xs {
		if i == 0 || x != xs[i-1] {
			out = append(out, x)
		}
	}
	return out
}
