package openapi

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/contract/rules"
	"github.com/retryspec/retryspec/findings"
)

func TestDriftSmall(t *testing.T) {
	c, err := contract.Load("testdata/contract.yaml")
	if err != nil {
		t.Fatal(err)
	}
	fs, err := Drift(c, "testdata/small.yaml", DriftOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range fs {
		got = append(got, fmt.Sprintf("%s:%d:%d %s %s %s", f.File, f.Line, f.Column, f.Severity, f.Rule, f.Path))
	}
	// The contract classifies DELETE /v1/transfers/{id}, which the spec
	// writes {transfer_id}: shapes match. It lists POST /v1/payouts, which
	// the spec lacks. Every state-changing operation of the spec is classified.
	want := []string{
		"testdata/contract.yaml:55:16 warning endpoint/unknown endpoints[5].operation",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("drift (-want +got):\n%s", diff)
	}
}

func TestDriftUnclassified(t *testing.T) {
	src := strings.Replace(mustRead(t, "testdata/contract.yaml"), "  - operation: POST /v1/refunds\n    effect: create\n    key: required\n", "", 1)
	c, err := contract.Parse("retryspec.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	fs, err := Drift(c, "testdata/small.yaml", DriftOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var u []findings.Finding
	for _, f := range fs {
		if f.Rule == RuleUnclassified {
			u = append(u, f)
		}
	}
	if len(fs) != 2 || len(u) != 1 || u[0].File != "testdata/small.yaml" || u[0].Line != 55 || u[0].Column != 5 || u[0].Severity != findings.Error {
		t.Fatalf("want one endpoint/unclassified for POST /v1/refunds at testdata/small.yaml:55:5, got %+v", fs)
	}
	if !strings.Contains(u[0].Fix, `"POST /v1/refunds"`) {
		t.Errorf("fix does not name the operation: %s", u[0].Fix)
	}
}

// TestDriftRealSpecs: a contract imported from a spec has no drift with it;
// dropping the contract's state-changing endpoints reports every one of
// them at its line. The specs are the excerpts of public specs (Stripe,
// GitHub, Resend, Twilio, Adyen) in testdata/realspecs, whose README names
// each source, its licence and how it was cut; BenchmarkFieldRealSpecs
// runs the same check on the whole specs.
func TestDriftRealSpecs(t *testing.T) {
	for name, path := range realSpecs(t) {
		t.Run(name, func(t *testing.T) {
			checkRealDrift(t, path, settings[name].ops)
		})
	}
}

func checkRealDrift(t testing.TB, path string, want int) {
	t.Helper()
	s, err := Load(path, LoadOptions{SkipValidation: true})
	if err != nil {
		t.Fatal(err)
	}
	c := contractFor(t, s, 255, "required")
	// A spec's own words saying a PUT or DELETE sends or charges are a
	// question for the reviewer of the imported effects, not drift: the
	// operation lists still agree.
	fs := slices.DeleteFunc(DriftSpec(c, s), func(f findings.Finding) bool { return f.Rule == rules.OpenAPISummaryContradicts })
	if len(fs) != 0 {
		t.Errorf("%s: imported contract drifts from its spec: %d findings, first %+v", path, len(fs), fs[0])
	}
	empty, err := contract.Parse("retryspec.yaml", []byte(strings.Replace(mustRead(t, "testdata/contract.yaml"), "endpoints:\n", "endpoints:\n  - {operation: POST /no/such/thing, effect: create, key: required}\n", 1)))
	if err != nil {
		t.Fatal(err)
	}
	// Keep only the new first endpoint: the spec has none of the others either.
	empty.Endpoints = empty.Endpoints[:1]
	fs = DriftSpec(empty, s)
	unclassified, unknown := 0, 0
	for _, f := range fs {
		switch f.Rule {
		case RuleUnclassified:
			unclassified++
			if f.File != path || f.Line < 1 {
				t.Fatalf("finding without the spec's file and line: %+v", f)
			}
			if got := sourceLineOf(s.Data, f.Line); !strings.Contains(strings.ToLower(got), strings.ToLower(strings.Fields(f.Message)[0])) {
				t.Fatalf("line %d of %s is %q, not the operation of %q", f.Line, filepath.Base(path), got, f.Message)
			}
		case RuleUnknown:
			unknown++
		}
	}
	if unclassified != want || unknown != 1 {
		t.Errorf("%s: %d unclassified (want %d), %d unknown (want 1)", path, unclassified, want, unknown)
	}
}

func sourceLineOf(data []byte, n int) string {
	lines := strings.SplitN(string(data), "\n", n+1)
	if n-1 < len(lines) {
		return lines[n-1]
	}
	return ""
}

func TestSummarizeUnclassified(t *testing.T) {
	mk := func(n int) []findings.Finding {
		var fs []findings.Finding
		for i := n; i > 0; i-- { // unsorted on purpose
			fs = append(fs, findings.Finding{Rule: RuleUnclassified, Severity: findings.Error, File: "spec.yaml", Line: 10 * i, Column: 5,
				Message: fmt.Sprintf("POST /v1/op%d changes state but the contract's endpoints do not classify it", i)})
		}
		return fs
	}
	other := findings.Finding{Rule: RuleUnknown, Severity: findings.Warning, File: "retryspec.yaml", Line: 3, Column: 1, Message: "x"}
	waived := findings.Finding{Rule: RuleUnclassified, Severity: findings.Error, File: "spec.yaml", Line: 1, Column: 5, Waived: true, Message: "POST /w changes state"}

	few := append(mk(SummaryThreshold), other)
	if got := SummarizeUnclassified(few); len(got) != len(few) {
		t.Fatalf("%d findings (at the threshold) were folded into %d", len(few), len(got))
	}

	many := append(mk(12), other, waived)
	got := SummarizeUnclassified(many)
	if len(got) != 3 {
		t.Fatalf("want the summary, the waived finding and the other finding, got %d: %+v", len(got), got)
	}
	var sum findings.Finding
	for _, f := range got {
		if f.Rule == RuleUnclassified && !f.Waived {
			sum = f
		}
	}
	if sum.File != "spec.yaml" || sum.Line != 10 || sum.Column != 5 || sum.Severity != findings.Error {
		t.Errorf("summary not at the first operation's position: %+v", sum)
	}
	for _, want := range []string{"12 state-changing operations", "POST /v1/op1, POST /v1/op2, POST /v1/op3, POST /v1/op4, POST /v1/op5, and 7 more"} {
		if !strings.Contains(sum.Message, want) {
			t.Errorf("summary message lacks %q: %s", want, sum.Message)
		}
	}
	if len(many) != 14 || many[0].Line != 120 {
		t.Errorf("the input was changed")
	}
}

// TestDriftSpecSummaryContradictsEffect: with --openapi, the spec's own
// summary or description of a PUT or DELETE judges the effect the contract
// took from the method, quoted in the finding, which sits at the contract
// endpoint's effect. A neutral summary, or one the contract's own summary
// already reports, adds nothing.
func TestDriftSpecSummaryContradictsEffect(t *testing.T) {
	const cart = "  /v1/carts/{id}/items:\n    put:\n      parameters: [{name: id, in: path, required: true, schema: {type: string}}]\n" +
		"      WORDS\n      responses:\n        \"200\":\n          description: The cart.\n"
	const entry = "  - operation: PUT /v1/carts/{id}/items\n    effect: replace\n    key: none\n"
	for _, tc := range []struct {
		name, words, contractSummary string
		want                         []string // substrings of the one finding's message; nil: no finding
	}{
		{"summary appends", "summary: Appends an item to the cart", "",
			[]string{`PUT /v1/carts/{id}/items has effect replace`, `its summary in ` + "SPEC" + ` says "Appends" ("Appends an item to the cart")`, "a retry appends again"}},
		{"description sends, quoted by its sentence", "description: \"Stores the cart.\\n\\nThen it sends a receipt to the buyer. Nothing else.\"", "",
			[]string{`its description in SPEC says "sends" ("Then it sends a receipt to the buyer.")`}},
		{"neutral summary", "summary: Replaces the items of the cart", "", nil},
		{"no words at all", "operationId: putItems", "", nil},
		{"the contract's own summary already reports it", "summary: Appends an item to the cart", "    summary: Adds an item and charges the card\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			spec := filepath.Join(dir, "spec.yaml")
			specSrc := strings.Replace(mustRead(t, "testdata/small.yaml"), "  /v1/refunds:\n", strings.Replace(cart, "WORDS", tc.words, 1)+"  /v1/refunds:\n", 1)
			if err := os.WriteFile(spec, []byte(specSrc), 0o644); err != nil {
				t.Fatal(err)
			}
			src := strings.Replace(mustRead(t, "testdata/contract.yaml"), "  - operation: POST /v1/payouts\n", entry+tc.contractSummary+"  - operation: POST /v1/payouts\n", 1)
			c, err := contract.Parse("retryspec.yaml", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			fs, err := Drift(c, spec, DriftOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var got []findings.Finding
			for _, f := range fs {
				if f.Rule == rules.OpenAPISummaryContradicts {
					got = append(got, f)
				}
			}
			if tc.want == nil {
				if len(got) != 0 {
					t.Fatalf("want no finding, got %+v", got)
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("want one openapi/summary-contradicts-effect, got %+v (all: %+v)", got, fs)
			}
			f := got[0]
			line := strings.Count(src[:strings.Index(src, entry)], "\n") + 2
			if f.File != "retryspec.yaml" || f.Line != line || f.Column != 13 || f.Path != "endpoints[5].effect" || f.Severity != findings.Error {
				t.Errorf("finding at %s:%d:%d %s (%v), want retryspec.yaml:%d:13 endpoints[5].effect (error)", f.File, f.Line, f.Column, f.Path, f.Severity, line)
			}
			for _, w := range tc.want {
				if w = strings.ReplaceAll(w, "SPEC", spec); !strings.Contains(f.Message, w) {
					t.Errorf("message %q lacks %q", f.Message, w)
				}
			}
			if !strings.Contains(f.Fix, "set effect:") {
				t.Errorf("fix %q does not say which effect to set", f.Fix)
			}
		})
	}
}
