package idempotency_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/idempotency"
	"github.com/retryspec/retryspec/openapi"
)

// TestAnswersAgreeWithDocsAndSpec builds each example contract, sends the
// middleware the requests it answers itself, and compares the bytes of
// each answer with the body the Errors and Idempotent requests pages show
// and the example the OpenAPI additions give for that status and code:
// one rendering (contract.Reply), so any disagreement is a bug.
func TestAnswersAgreeWithDocsAndSpec(t *testing.T) {
	files, err := filepath.Glob("../examples/*/retryspec.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no example contracts: %v", err)
	}
	variants := []struct {
		name string
		edit func(string) string
	}{
		{"as written", nil},
		{"problem+json", problemJSON},
		{"status-only mismatch", statusOnlyMismatch},
	}
	served := map[string]bool{}
	for _, file := range files {
		for _, v := range variants {
			t.Run(filepath.Base(filepath.Dir(file))+"/"+v.name, func(t *testing.T) {
				c := loadVariant(t, file, v.edit)
				if gaps := c.MiddlewareGaps(); len(gaps) > 0 {
					refusesGaps(t, c, gaps)
					return
				}
				got, successes := middlewareAnswers(t, c)
				docs := docsBodies(t, c)
				docsResults := docsResultValues(t, c)
				spec, specResults := specExamples(t, c)
				for kind, body := range got {
					want := c.Reply(kind)
					if string(body.bytes) != string(want.Bytes()) || body.status != want.Status || body.contentType != want.ContentType {
						t.Errorf("middleware answer %d: %d %s %s, want %d %s %s", kind, body.status, body.contentType, body.bytes, want.Status, want.ContentType, want.Bytes())
					}
					sent := strings.TrimSuffix(string(body.bytes), "\n")
					if d, ok := docs[kind]; ok && d != sent {
						t.Errorf("answer %d: the docs show %s, the middleware sends %s", kind, d, sent)
					}
					if s, ok := spec[kind]; ok && s != sameJSON(t, body.bytes) {
						t.Errorf("answer %d: the OpenAPI example is %s, the middleware sends %s", kind, s, sent)
					}
					checkResult(t, c, fmt.Sprintf("answer %d", kind), body, c.ResultValue(kind), docsResults[kind], specResults[body.status])
				}
				for _, s := range successes {
					checkResult(t, c, "the handler's answer", s, c.Idempotency.ResultHeader.Accepted, "", specResults[200])
				}
				for _, k := range []contract.ReplyKind{contract.ReplyPayloadMismatch, contract.ReplyMissingKey, contract.ReplyInvalidKey} {
					if _, ok := spec[k]; !ok {
						t.Errorf("the OpenAPI additions show no example for answer %d", k)
					}
				}
				if c.Idempotency.FirstSent.Set() {
					if _, ok := spec[contract.ReplyTooOld]; !ok {
						t.Error("the OpenAPI additions show no example for the too-old answer")
					}
				}
				if _, ok := docs[contract.ReplyPayloadMismatch]; !ok {
					t.Error("the docs show no payload-mismatch body")
				}
				id := c.Idempotency
				served["body key"] = served["body key"] || id.InBody()
				served["first-sent window"] = served["first-sent window"] || id.FirstSent.Set()
				served["result header"] = served["result header"] || id.ResultHeader.Set()
			})
		}
	}
	// The examples with the issue-32 fields must be served, not refused.
	for _, f := range []string{"body key", "first-sent window", "result header"} {
		if !served[f] {
			t.Errorf("no example contract with a %s was served and compared", f)
		}
	}
}

// checkResult compares the result header an answer carried with the value
// contract.ResultValue gives (want), the docs' table cell (docs, "" when
// the page has no row for it) and the OpenAPI response's declared values
// (spec); with no result header in the contract, the answer carries none.
func checkResult(t *testing.T, c *contract.Contract, what string, a answer, want, docs string, spec []string) {
	t.Helper()
	rh := c.Idempotency.ResultHeader
	if !rh.Set() {
		if a.result != "" {
			t.Errorf("%s carries a result header %q; the contract names none", what, a.result)
		}
		return
	}
	if a.result != want {
		t.Errorf("%s: %s: %q, want %q", what, rh.Name, a.result, want)
	}
	if docs != "" && docs != a.result {
		t.Errorf("%s: the docs show %s: %s, the middleware sends %q", what, rh.Name, docs, a.result)
	}
	if !slices.Contains(spec, a.result) {
		t.Errorf("%s: the OpenAPI response for %d declares %s values %v, the middleware sends %q", what, a.status, rh.Name, spec, a.result)
	}
}

func loadVariant(t *testing.T, file string, edit func(string) string) *contract.Contract {
	t.Helper()
	c, err := contract.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	if edit == nil || c.Idempotency.InGraphQL() {
		// A GraphQL conflict has no status to vary (a status on it is
		// refused); the middleware refuses the contract as written.
		return c
	}
	src := edit(string(c.Source))
	if c, err = contract.Parse(file, []byte(src)); err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	return c
}

var (
	errorBodySection = regexp.MustCompile(`(?m)^  error_body:.*\n(    .*\n)*`)
	mismatchLine     = regexp.MustCompile(`(?m)^    payload_mismatch:.*$`)
)

// problemJSON switches a contract's error bodies to RFC 9457's.
func problemJSON(src string) string {
	src = errorBodySection.ReplaceAllString(src, "")
	return strings.Replace(src, "\nidempotency:\n", "\n  error_body:\n    format: problem+json\nidempotency:\n", 1)
}

// statusOnlyMismatch answers the payload mismatch by status only, with a
// message of the contract's own.
func statusOnlyMismatch(src string) string {
	return mismatchLine.ReplaceAllString(src, `    payload_mismatch: { status: 422, code: none, message: "Key reused with another request." }`)
}

type answer struct {
	status      int
	contentType string
	bytes       []byte
	// result is the result header's value, "" when absent.
	result string
}

// middlewareAnswers sends the requests the middleware answers itself.
// refusesGaps checks that New refuses a contract with fields the
// middleware does not act on yet, naming each of them.
func refusesGaps(t *testing.T, c *contract.Contract, gaps []string) {
	t.Helper()
	_, err := idempotency.New(c, idempotency.NewMemoryStore(c), idempotency.Options{
		Account: func(*http.Request) (string, bool) { return "acct_1", true },
	})
	for _, g := range gaps {
		if err == nil || !strings.Contains(err.Error(), g) {
			t.Errorf("New = %v, want a refusal naming %s", err, g)
		}
	}
}

// middlewareAnswers sends the requests the middleware answers itself,
// with the key where the contract says it travels and, under a first-sent
// window, a first-sent time; successes are the handler's answers (the
// first run and its replay).
func middlewareAnswers(t *testing.T, c *contract.Contract) (out map[contract.ReplyKind]answer, successes []answer) {
	t.Helper()
	ep, ok := c.FirstRequiredKeyEndpoint()
	if !ok {
		t.Fatal("no keyed endpoint")
	}
	m, err := idempotency.New(c, idempotency.NewMemoryStore(c), idempotency.Options{
		Account: func(*http.Request) (string, bool) { return "acct_1", true },
	})
	if err != nil {
		t.Fatal(err)
	}
	h, err := m.Handle(ep.Operation, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte(`{"id":"x"}`))
	}))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	do := func(k keyed) answer {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, k.request(c, ep))
		result := ""
		if rh := c.Idempotency.ResultHeader; rh.Set() {
			result = w.Header().Get(rh.Name)
		}
		return answer{w.Code, w.Header().Get("Content-Type"), w.Body.Bytes(), result}
	}
	out = map[contract.ReplyKind]answer{}
	if ep.Key == contract.KeyRequired {
		out[contract.ReplyMissingKey] = do(keyed{body: `{}`, firstSent: now})
	}
	out[contract.ReplyInvalidKey] = do(keyed{key: strings.Repeat("k", c.MaxKeyLengthFor(ep)+1), body: `{}`, firstSent: now})
	first := do(keyed{key: "key-1", body: `{"a":1}`, firstSent: now})
	if first.status != http.StatusCreated {
		t.Fatalf("first request: %d %s", first.status, first.bytes)
	}
	out[contract.ReplyPayloadMismatch] = do(keyed{key: "key-1", body: `{"a":2}`, firstSent: now})
	successes = append(successes, first, do(keyed{key: "key-1", body: `{"a":1}`, firstSent: now}))
	if fs := c.Idempotency.FirstSent; fs.Set() {
		out[contract.ReplyTooOld] = do(keyed{key: "key-2", body: `{"a":1}`, firstSent: now.Add(-fs.Window.D - time.Minute)})
		// A key without its first-sent time gets the invalid-key answer,
		// as the pages say.
		if a := do(keyed{key: "key-3", body: `{"a":1}`}); a.status != out[contract.ReplyInvalidKey].status || !bytes.Equal(a.bytes, out[contract.ReplyInvalidKey].bytes) {
			t.Errorf("no first-sent time: %d %s, want the invalid-key answer", a.status, a.bytes)
		}
	}
	return out, successes
}

var pathParam = regexp.MustCompile(`\{([^{}]+)\}`)

var jsonFence = regexp.MustCompile("(?s)```json\n(.*?)```")

// docsBodies reads the example bodies of the Errors and Idempotent
// requests pages, compacted (the pages indent them).
func docsBodies(t *testing.T, c *contract.Contract) map[contract.ReplyKind]string {
	t.Helper()
	out := map[contract.ReplyKind]string{}
	for _, p := range markdownPages(t, c) {
		if p.Path != "errors.md" && p.Path != "idempotency.md" {
			continue
		}
		for _, m := range jsonFence.FindAllSubmatch(p.Markdown, -1) {
			var b bytes.Buffer
			if err := json.Compact(&b, m[1]); err != nil {
				t.Fatalf("%s: %v", p.Path, err)
			}
			for _, k := range []contract.ReplyKind{contract.ReplyPayloadMismatch, contract.ReplyInFlight} {
				msg, _ := json.Marshal(c.Reply(k).Message)
				if bytes.Contains(b.Bytes(), msg) {
					if prev, ok := out[k]; ok && prev != b.String() {
						t.Errorf("two pages show two bodies for answer %d: %s and %s", k, prev, b.String())
					}
					out[k] = b.String()
				}
			}
		}
	}
	return out
}

// specExamples reads the OpenAPI additions' example for each answer of
// the first keyed endpoint, compacted as JSON.
//
// results lists, by status, the values the response declares for the
// result header.
func specExamples(t *testing.T, c *contract.Contract) (examples map[contract.ReplyKind]string, results map[int][]string) {
	t.Helper()
	op := specResponses(t, c)
	examples = map[contract.ReplyKind]string{}
	for _, k := range []contract.ReplyKind{contract.ReplyPayloadMismatch, contract.ReplyInFlight, contract.ReplyMissingKey, contract.ReplyInvalidKey, contract.ReplyExpired, contract.ReplyTooOld} {
		r := c.Reply(k)
		exs, _ := dig(op, strconv.Itoa(r.Status), "content", r.ContentType, "examples").(map[string]any)
		for _, ex := range exs {
			v := dig(ex, "value")
			b, _ := json.Marshal(v)
			msg, _ := json.Marshal(r.Message)
			if bytes.Contains(b, msg) {
				examples[k] = string(bytes.TrimSpace(b))
			}
		}
	}
	results = map[int][]string{}
	if rh := c.Idempotency.ResultHeader; rh.Set() {
		responses, _ := op.(map[string]any)
		for status := range responses {
			n, _ := strconv.Atoi(status)
			enum, _ := dig(responses, status, "headers", rh.Name, "schema", "enum").([]any)
			for _, v := range enum {
				results[n] = append(results[n], fmt.Sprint(v))
			}
		}
	}
	return examples, results
}

// docsResultValues reads the result-header column of the Idempotent
// requests page's conflicts table, by the answer each row describes.
func docsResultValues(t *testing.T, c *contract.Contract) map[contract.ReplyKind]string {
	t.Helper()
	out := map[contract.ReplyKind]string{}
	if !c.Idempotency.ResultHeader.Set() {
		return out
	}
	_, section, ok := strings.Cut(idempotencyPage(t, c), "## Conflicts\n")
	if !ok {
		t.Fatal("the Idempotent requests page has no Conflicts section")
	}
	rows := map[string]contract.ReplyKind{
		"Same key, different request": contract.ReplyPayloadMismatch, "Same key while": contract.ReplyInFlight,
		"Key missing": contract.ReplyMissingKey, "Key too long": contract.ReplyInvalidKey,
		"Same key after the replay window": contract.ReplyExpired, "First sent more than": contract.ReplyTooOld,
	}
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		for prefix, k := range rows {
			if strings.HasPrefix(cells[0], prefix) {
				out[k] = strings.Trim(cells[len(cells)-1], "`")
			}
		}
	}
	if len(out) < 4 {
		t.Fatalf("read %d result values from the conflicts table:\n%s", len(out), section)
	}
	return out
}

// sameJSON re-encodes a body as the YAML-read spec examples are: the
// OpenAPI file has no byte form of its examples, only their values.
func sameJSON(t *testing.T, b []byte) string {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// specResponses merges the OpenAPI additions into a spec listing c's
// endpoints and returns the responses of the first keyed endpoint.
func specResponses(t *testing.T, c *contract.Contract) any {
	t.Helper()
	var paths strings.Builder
	seen := map[string]bool{}
	for _, e := range c.Endpoints {
		if seen[e.Path] {
			continue
		}
		seen[e.Path] = true
		fmt.Fprintf(&paths, "  %q:\n", e.Path)
		if params := pathParam.FindAllStringSubmatch(e.Path, -1); len(params) > 0 {
			paths.WriteString("    parameters:\n")
			for _, m := range params {
				fmt.Fprintf(&paths, "      - {name: %s, in: path, required: true, schema: {type: string}}\n", m[1])
			}
		}
		for _, o := range c.Endpoints {
			if o.Path == e.Path {
				fmt.Fprintf(&paths, "    %s:\n      responses:\n        \"200\":\n          description: ok\n", strings.ToLower(o.Method))
			}
		}
	}
	src := "openapi: 3.0.3\ninfo: {title: t, version: \"1\"}\npaths:\n" + paths.String()
	s, err := openapi.Parse("spec.yaml", []byte(src), openapi.LoadOptions{})
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	merged, err := openapi.Merged(s, openapi.NewPlan(c, s))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(merged, &doc); err != nil {
		t.Fatal(err)
	}
	ep, _ := c.FirstRequiredKeyEndpoint()
	return dig(doc, "paths", ep.Path, strings.ToLower(ep.Method), "responses")
}

// TestMissingKeyBodyCaseEverywhere: with the key in the body, a request
// body that is not a JSON object gets the missing-key answer, and the
// Errors page, the OpenAPI response description and the middleware's
// message all say so with the clause contract.MissingKeyBodyCase renders;
// with a header key none of them mentions it.
func TestMissingKeyBodyCaseEverywhere(t *testing.T) {
	for _, name := range []string{"square-payments", "payouts"} {
		t.Run(name, func(t *testing.T) {
			c := exampleContract(t, name)
			clause := c.Idempotency.MissingKeyBodyCase()
			if (clause != "") != c.Idempotency.InBody() {
				t.Fatalf("clause %q for key_in body: %v", clause, c.Idempotency.InBody())
			}
			has := func(what, text string) {
				t.Helper()
				if clause != "" && !strings.Contains(text, clause) {
					t.Errorf("%s does not say %q: %s", what, clause, text)
				}
				if clause == "" && strings.Contains(text, "JSON object") {
					t.Errorf("%s speaks of a JSON object body under a header key: %s", what, text)
				}
			}
			reply := c.Reply(contract.ReplyMissingKey)
			row := ""
			for _, p := range markdownPages(t, c) {
				if p.Path != "errors.md" {
					continue
				}
				for _, line := range strings.Split(string(p.Markdown), "\n") {
					if strings.HasPrefix(line, "| `"+reply.Code+"`") {
						row = line
					}
				}
			}
			desc, _ := dig(specResponses(t, c), strconv.Itoa(reply.Status), "description").(string)
			if row == "" || desc == "" {
				t.Fatalf("no missing-key row on the Errors page (%q) or no %d description in the spec (%q)", row, reply.Status, desc)
			}
			has("the Errors page's missing-key row", row)
			has("the OpenAPI response description", desc)
			has("the middleware's message", reply.Message)
			if !c.Idempotency.InBody() {
				return
			}
			const pay = "POST /v2/payments"
			s := serve(t, c, idempotency.NewMemoryStore(c), idempotency.Options{}, pay)
			for _, b := range []string{`[1,2]`, `"a string"`, `not json`} {
				if w := s.sendRaw(t, pay, b); w.Code != reply.Status || w.Body.String() != string(reply.Bytes()) {
					t.Errorf("body %s: %d %s, want the missing-key answer %s", b, w.Code, w.Body, reply.Bytes())
				}
			}
		})
	}
}
