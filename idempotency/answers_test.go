package idempotency_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

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
	for _, file := range files {
		for _, v := range variants {
			t.Run(filepath.Base(filepath.Dir(file))+"/"+v.name, func(t *testing.T) {
				c := loadVariant(t, file, v.edit)
				if gaps := c.MiddlewareGaps(); len(gaps) > 0 {
					refusesGaps(t, c, gaps)
					return
				}
				got := middlewareAnswers(t, c)
				docs := docsBodies(t, c)
				spec := specExamples(t, c)
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
				}
				for _, k := range []contract.ReplyKind{contract.ReplyPayloadMismatch, contract.ReplyMissingKey, contract.ReplyInvalidKey} {
					if _, ok := spec[k]; !ok {
						t.Errorf("the OpenAPI additions show no example for answer %d", k)
					}
				}
				if _, ok := docs[contract.ReplyPayloadMismatch]; !ok {
					t.Error("the docs show no payload-mismatch body")
				}
			})
		}
	}
}

func loadVariant(t *testing.T, file string, edit func(string) string) *contract.Contract {
	t.Helper()
	c, err := contract.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	if edit == nil {
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

func middlewareAnswers(t *testing.T, c *contract.Contract) map[contract.ReplyKind]answer {
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
	id := c.Idempotency
	key := func(k string) string {
		if id.HeaderValue == contract.HeaderSFString {
			return strconv.Quote(k)
		}
		return k
	}
	do := func(k, body string) answer {
		r := httptest.NewRequest(ep.Method, "/x", strings.NewReader(body))
		if k != "" {
			r.Header.Set(id.Header, key(k))
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return answer{w.Code, w.Header().Get("Content-Type"), w.Body.Bytes()}
	}
	out := map[contract.ReplyKind]answer{}
	if ep.Key == contract.KeyRequired {
		out[contract.ReplyMissingKey] = do("", `{}`)
	}
	out[contract.ReplyInvalidKey] = do(strings.Repeat("k", id.MaxKeyLength+1), `{}`)
	if first := do("key-1", `{"a":1}`); first.status != http.StatusCreated {
		t.Fatalf("first request: %d %s", first.status, first.bytes)
	}
	out[contract.ReplyPayloadMismatch] = do("key-1", `{"a":2}`)
	return out
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
func specExamples(t *testing.T, c *contract.Contract) map[contract.ReplyKind]string {
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
	op := dig(doc, "paths", ep.Path, strings.ToLower(ep.Method), "responses")
	out := map[contract.ReplyKind]string{}
	for _, k := range []contract.ReplyKind{contract.ReplyPayloadMismatch, contract.ReplyInFlight, contract.ReplyMissingKey, contract.ReplyInvalidKey, contract.ReplyExpired} {
		r := c.Reply(k)
		examples, _ := dig(op, strconv.Itoa(r.Status), "content", r.ContentType, "examples").(map[string]any)
		for _, ex := range examples {
			v := dig(ex, "value")
			b, _ := json.Marshal(v)
			msg, _ := json.Marshal(r.Message)
			if bytes.Contains(b, msg) {
				out[k] = string(bytes.TrimSpace(b))
			}
		}
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
