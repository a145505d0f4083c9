package openapi

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/retryspec/retryspec/contract"
	goldenfile "github.com/retryspec/retryspec/internal/golden"
	"go.yaml.in/yaml/v3"
)

// golden compares got with testdata/golden/name; -update rewrites it.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", "golden", name), got)
}

func TestGolden(t *testing.T) {
	c, err := contract.Load("testdata/contract.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, spec := range []string{"small.yaml", "small.json"} {
		t.Run(spec, func(t *testing.T) {
			s, err := Load(filepath.Join("testdata", spec), LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			p := NewPlan(c, s)
			merged, err := Merged(s, p)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, "merged."+spec, merged)
			if err := addedLinesOnly(s.Data, merged); err != nil {
				t.Error(err)
			}
			m, err := Parse("merged."+spec, merged, LoadOptions{})
			if err != nil {
				t.Fatalf("merged spec does not validate: %v", err)
			}
			if again := NewPlan(c, m); len(again.Edits) != 0 {
				t.Errorf("second run adds %d edits", len(again.Edits))
			}
			ov := OverlayText(Overlay(c, s, p), strings.HasSuffix(spec, ".json"))
			golden(t, "overlay."+spec, ov)

			// The overlay is a well-formed Overlay 1.0 document: version,
			// info, and actions that each target something with a JSONPath
			// and carry an update.
			var doc struct {
				Overlay string
				Info    struct{ Title, Version string }
				Actions []struct {
					Target string
					Update any
				}
			}
			if err := yaml.Unmarshal(ov, &doc); err != nil {
				t.Fatal(err)
			}
			if doc.Overlay != "1.0.0" || doc.Info.Title == "" || doc.Info.Version == "" || len(doc.Actions) == 0 {
				t.Fatalf("not an Overlay 1.0 document: %+v", doc)
			}
			for _, a := range doc.Actions {
				if !strings.HasPrefix(a.Target, "$") || a.Update == nil {
					t.Errorf("bad action %+v", a)
				}
			}

			// What was reused and skipped is reported, not silently dropped.
			var notes []string
			for _, n := range append(p.Reused, p.Skipped...) {
				notes = append(notes, n.Operation+": "+n.Message)
			}
			want := []string{
				"POST /v1/refunds: header parameter Idempotency-Key is already declared (inline); reused",
				"POST /v1/refunds: response 409 is already declared; left as it is (document invalid_idempotent_request, concurrent_idempotent_requests in it)",
				"POST /v1/refunds: response 200 is the shared component #/components/responses/Refund, also used by 1 operations without a key; Idempotent-Replayed not declared on it",
				"POST /v1/payouts: not in the spec; nothing added for it",
			}
			if diff := cmp.Diff(want, notes); diff != "" {
				t.Errorf("notes (-want +got):\n%s", diff)
			}
		})
	}
}

// TestContradictions: Resend declares the header with maxLength 256 and
// required: false; a contract with 255 and key: required contradicts both
// on each of its two operations.
func TestContradictions(t *testing.T) {
	specs := realSpecs(t)
	s, err := Load(specs["resend-resend-openapi"], LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := contractFor(t, s, 255, "required")
	p := NewPlan(c, s)
	var got []string
	for _, f := range p.Findings {
		got = append(got, f.Rule+" "+f.Path+" line "+strconv.Itoa(f.Line))
	}
	want := []string{
		"openapi/contradicts-contract idempotency.max_key_length line 62",
		"openapi/contradicts-contract endpoints[0].key line 57",
		"openapi/contradicts-contract idempotency.max_key_length line 163",
		"openapi/contradicts-contract endpoints[5].key line 158",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("contradictions (-want +got):\n%s", diff)
	}
	for _, e := range p.Edits {
		if e.Key == "" && len(e.Target) == 4 && e.Target[3] == "parameters" && (e.Target[1] == "/emails" || e.Target[1] == "/emails/batch") {
			t.Errorf("a second key header was added to %s", e.Target[1])
		}
	}
}

func TestHeaderNameContradiction(t *testing.T) {
	src := strings.Replace(mustRead(t, "testdata/contract.yaml"), "header: Idempotency-Key", "header: X-Idempotency-Token", 1)
	c, err := contract.Parse("retryspec.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	s, err := Load("testdata/small.yaml", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := NewPlan(c, s)
	if len(p.Findings) != 1 || p.Findings[0].Line != 57 || !strings.Contains(p.Findings[0].Message, "X-Idempotency-Token") {
		t.Fatalf("want one finding at small.yaml:57 about the header name, got %+v", p.Findings)
	}
}

// TestCRLF: a spec saved with Windows line endings keeps them, and the
// added lines use them too.
func TestCRLF(t *testing.T) {
	c, err := contract.Load("testdata/contract.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, spec := range []string{"small.yaml", "small.json"} {
		src := strings.ReplaceAll(mustRead(t, filepath.Join("testdata", spec)), "\n", "\r\n")
		s, err := Parse(spec, []byte(src), LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		merged, err := Merged(s, NewPlan(c, s))
		if err != nil {
			t.Fatal(err)
		}
		if err := addedLinesOnly(s.Data, merged); err != nil {
			t.Errorf("%s: %v", spec, err)
		}
		if n := strings.Count(string(merged), "\n"); n != strings.Count(string(merged), "\r\n") {
			t.Errorf("%s: %d line feeds without a carriage return", spec, n-strings.Count(string(merged), "\r\n"))
		}
		want, _ := os.ReadFile(filepath.Join("testdata", "golden", "merged."+spec))
		if string(merged) != strings.ReplaceAll(string(want), "\n", "\r\n") {
			t.Errorf("%s: CRLF output differs from the LF golden file beyond line endings", spec)
		}
	}
}
