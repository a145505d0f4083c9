package verify

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/contract/rules"
	"github.com/retryspec/retryspec/findings"
	"github.com/retryspec/retryspec/internal/golden"
)

// sampleResult is a fixed run: one gate of each result, a finding with a
// reproduction, fixed durations, so every format's rendering is a golden file.
func sampleResult() *Result {
	spread := 0.42
	return &Result{
		BaseURL:       "http://127.0.0.1:8080",
		ServerCommand: []string{"./bin/api", "--addr", "{addr}"},
		Gates: []GateResult{
			{Gate: GateMissingKey, Operation: "POST /v1/transfers", Result: Passed, Reason: "answered 400 missing_idempotency_key", Requests: 1, Seconds: 0.01, Effects: "not observed: a request without a key cannot be counted by key"},
			{Gate: GateConcurrency, Operation: "POST /v1/transfers", Result: Failed, Reason: "16 identical requests with one key made 3 effects, not 1 <&>", Requests: 18, Seconds: 0.25, Effects: "observed: 0 before, 3 after", SpreadMS: &spread,
				Reproduction: []string{"# 16 at once, on warm connections:", "for i in $(seq 16); do curl -sS -i -X POST 'http://127.0.0.1:8080/v1/transfers' -H 'Authorization: ***' & done; wait"}},
			{Gate: GateScope, Operation: "POST /v1/transfers", Result: Skipped, Reason: "the plan has no other_principal", Effects: "not observed: gate skipped"},
		},
		Findings: []Finding{{
			Finding: findings.Finding{Rule: GateConcurrency, Severity: findings.Error, Message: "POST /v1/transfers: 16 identical requests with one key made 3 effects, not 1 <&>",
				File: "retryspec.yaml", Line: 21, Column: 16, Path: "idempotency.claim.mechanism", Fix: "claim the key atomically"},
			Reproduction: []string{"# 16 at once, on warm connections:", "for i in $(seq 16); do curl -sS -i -X POST 'http://127.0.0.1:8080/v1/transfers' -H 'Authorization: ***' & done; wait"},
		}},
		EffectsCounted: true,
	}
}

// baseReport is the report the CLI passes (cli's newReport, without a
// version so goldens do not name a build).
func baseReport(sources map[string][]byte) findings.Report {
	return findings.Report{Tool: "retryspec", Rules: rules.Docs(), Sources: sources}
}

func TestEncodeGolden(t *testing.T) {
	for _, format := range Formats {
		t.Run(format, func(t *testing.T) {
			var b bytes.Buffer
			if err := Encode(&b, format, sampleResult(), baseReport(nil)); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "report", format+".golden"), b.Bytes())
		})
	}
}

// TestJSONShape: the gates list has the fields docs/verify.md names.
func TestJSONShape(t *testing.T) {
	var b bytes.Buffer
	Encode(&b, "json", sampleResult(), baseReport(nil))
	var doc struct {
		Findings []map[string]any `json:"findings"`
		Summary  map[string]int   `json:"summary"`
		Gates    []map[string]any `json:"gates"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, g := range doc.Gates {
		for _, k := range []string{"gate", "operation", "result", "reason", "requests", "seconds"} {
			if _, ok := g[k]; !ok {
				t.Errorf("gate %v lacks %q", g["gate"], k)
			}
		}
	}
	if len(doc.Gates) != 3 || doc.Summary["errors"] != 1 || doc.Findings[0]["reproduction"] == nil {
		t.Errorf("json = %s", b.String())
	}
}

// TestJUnitParses: the junit output is well-formed XML with one test case
// per gate, and an aborted run adds an error case.
func TestJUnitParses(t *testing.T) {
	res := sampleResult()
	res.Aborted = errors.New("server stopped answering")
	var b bytes.Buffer
	Encode(&b, "junit", res, baseReport(nil))
	var doc junitSuites
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	if doc.Tests != 4 || doc.Failures != 1 || doc.Skipped != 1 || doc.Errors != 1 {
		t.Errorf("junit counts = %+v", doc)
	}
}

// TestTextThroughThePrinter: verify's text findings are the findings
// printer's: the rule in brackets, the contract line clipped around the
// column with a caret when the source is given, the reproduction as a note
// under the fix, and colour only when the report asks for it.
func TestTextThroughThePrinter(t *testing.T) {
	res := sampleResult()
	long := "    mechanism: " + strings.Repeat("x", 500) + " # a long comment"
	src := strings.Repeat("\n", 20) + long + "\n"
	res.Findings[0].Column = 16
	var plain bytes.Buffer
	if err := Encode(&plain, "text", res, baseReport(map[string][]byte{"retryspec.yaml": []byte(src)})); err != nil {
		t.Fatal(err)
	}
	want := "retryspec.yaml:21:16: error: POST /v1/transfers: 16 identical requests with one key made 3 effects, not 1 <&> [verify/concurrency]\n" +
		"    " + long[:95] + "…\n" +
		"    " + strings.Repeat(" ", 15) + "^" + strings.Repeat("~", 80) + "\n" + // the token runs on into the "…"
		"    fix: claim the key atomically\n" +
		"    reproduce:\n" +
		"      # 16 at once, on warm connections:\n"
	if !strings.Contains(plain.String(), want) {
		t.Errorf("text output lacks\n%s\ngot\n%s", want, plain.String())
	}
	if strings.Contains(plain.String(), "\x1b[") {
		t.Errorf("escape codes without Color:\n%q", plain.String())
	}
	color := baseReport(nil)
	color.Color = true
	var painted bytes.Buffer
	if err := Encode(&painted, "text", res, color); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\x1b[1;31merror\x1b[0m", "\x1b[36mfix:\x1b[0m", "\x1b[36mreproduce:\x1b[0m"} {
		if !strings.Contains(painted.String(), want) {
			t.Errorf("coloured output lacks %q:\n%q", want, painted.String())
		}
	}
}
