package copylint

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"

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
	src, err := os.ReadFile(filepath.Join("testdata", "vale", "planted.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := runExportedVale(t, nil, src)
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

// valeRuleFiles checks that the rules written in parts (<Rule>.yml, then
// <Rule>Part2.yml, ...) are numbered without a gap and each part within
// valeTokensPerFile tokens and valeBytesPerFile bytes, and returns the
// rules' first files: how many parts a rule takes follows from its forms.
func valeRuleFiles(t *testing.T, dir string, names []string) []string {
	t.Helper()
	var rules []string
	for _, n := range names {
		base, part, ok := strings.Cut(strings.TrimSuffix(n, ".yml"), "Part")
		if !ok {
			rules = append(rules, n)
		} else if p, err := strconv.Atoi(part); err != nil || p < 2 || (p > 2 && !slices.Contains(names, base+"Part"+itoa(p-1)+".yml")) || !slices.Contains(names, base+".yml") {
			t.Errorf("%s: a part without the parts before it", n)
		}
		var r struct{ Tokens []string }
		data, err := os.ReadFile(filepath.Join(dir, n))
		if err == nil {
			err = yaml.Unmarshal(data, &r)
		}
		if err != nil {
			t.Fatal(err)
		}
		size := 0
		for _, tok := range r.Tokens {
			size += len(tok)
		}
		if len(r.Tokens) > valeTokensPerFile || (size > valeBytesPerFile && len(r.Tokens) > 1) {
			t.Errorf("%s: %d tokens, %d bytes; a part holds at most %d and %d", n, len(r.Tokens), size, valeTokensPerFile, valeBytesPerFile)
		}
	}
	return rules
}

// runExportedVale exports the style for c (nil: without a contract), runs
// the real Vale with it over src as planted.md, and returns its JSON.
func runExportedVale(t *testing.T, c *contract.Contract, src []byte) []byte {
	t.Helper()
	vale := valeBinary(t)
	dir := t.TempDir()
	styles := filepath.Join(dir, "styles")
	if _, err := ExportVale(filepath.Join(styles, ValeStyle), c); err != nil {
		t.Fatal(err)
	}
	ini := "StylesPath = styles\nMinAlertLevel = suggestion\n\n[*.md]\nBasedOnStyles = " + ValeStyle + "\n"
	if err := os.WriteFile(filepath.Join(dir, ".vale.ini"), []byte(ini), 0o644); err != nil {
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
	return out
}

// TestValeRunsTheContractExport: the style exported with a contract holds
// the contract's keyless-retry and endpoint forms as well, the longest
// rules of all; Vale must run it and report the planted keyless claim.
// (Its regexp engine panics on a rule whose alternation is too long, which
// only the split into parts prevents.)
func TestValeRunsTheContractExport(t *testing.T) {
	src := []byte("Lost the response? Just retry the transfer without an idempotency key.\n\nWe keep the key for 24 hours.\n")
	out := runExportedVale(t, payoutsContract(t), src)
	var alerts map[string][]struct{ Check string }
	if err := json.Unmarshal(out, &alerts); err != nil {
		t.Fatalf("vale output: %v\n%s", err, out)
	}
	var checks []string
	for _, a := range alerts["planted.md"] {
		checks = append(checks, a.Check)
	}
	if !slices.ContainsFunc(checks, func(c string) bool { return strings.HasPrefix(c, ValeStyle+".KeylessRetry") }) {
		t.Errorf("Vale did not report the keyless retry; its checks: %v", checks)
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
		{c, []string{"SafeToRetry.yml", "KeylessRetry.yml", "WholeApiIdempotent.yml"}, []string{"key-retention", "copy/retry-any-error (retry-status): compares the statuses", "endpoint-safe-to-retry: judged by the endpoint", "an operation a keyless-retry claim spells out by method and path", "clause readings"}},
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
		got = valeRuleFiles(t, dir, got)
		for _, id := range valeExpressible() {
			want = append(want, ValeRuleName(id)+".yml")
		}
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
