package idempotency_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/idempotency"
	"github.com/retryspec/retryspec/openapi"
	"github.com/retryspec/retryspec/render"
)

// publishedRule is one API's published storage or identity rule written
// as a contract fragment (replacements over the payouts example), the
// sentences its Idempotent requests page and its key header's OpenAPI
// description must show, and a first request and a retry with one key
// whose outcome the middleware must give on SQLite.
type publishedRule struct {
	name    string
	edits   []string
	page    []string // on the Idempotent requests page
	openapi []string // in the key header's description
	// status is what the handler answers; first and retry are the two
	// requests' bodies and Api-Version headers.
	status                     int
	firstBody, retryBody       string
	firstVersion, retryVersion string
	// wantStatus and wantRuns: the retry's answer and how often the
	// handler ran in all.
	wantStatus int
	wantRuns   int64
}

const (
	storedReattempt = "stored_failures: reattempt"
	whopHeaders     = "fingerprint: sha256-body\n  fingerprint_headers: [Api-Version]"
	traceExcluded   = "fingerprint: canonical-json\n  fingerprint_fields:\n    exclude: [/trace_id, /sent_at]"
)

var (
	checkoutStores = []string{"stored_failures: replay", storedReattempt + "\n  stored_outcomes: 2xx"}
	azureStores    = []string{"stored_failures: replay", storedReattempt + "\n  stored_outcomes: 2xx-4xx"}
	whopIdentity   = []string{"fingerprint: sha256-body", whopHeaders}
	traceIdentity  = []string{"fingerprint: sha256-body", traceExcluded}
	traced         = `{"amount":1000,"currency":"usd","destination":"acct_1","trace_id":"t-1","sent_at":"2026-01-02T03:04:05Z"}`
)

// TestPublishedStoreAndIdentityRules (issue 32 item 5): Checkout.com
// stores only successes (a 4xx is not saved and the payment may be tried
// again), Azure re-executes a 5xx, Whop counts its API version header as
// part of the same request; and a client-generated timestamp and trace id
// left out of the fingerprint. Each loads, the pages and the OpenAPI
// description say it, and the middleware on SQLite does it.
func TestPublishedStoreAndIdentityRules(t *testing.T) {
	tests := []publishedRule{
		{name: "Checkout.com: a 4xx runs again", edits: checkoutStores,
			page:    []string{"| 4xx other than 408, 425 and 429 | runs the request again |", "Only a success is stored."},
			openapi: []string{"Only a success (2xx) is stored: a retry with the same key after any other answer runs the request again."},
			status:  422, firstBody: body, retryBody: body, wantStatus: 422, wantRuns: 2},
		{name: "Checkout.com: a 2xx is replayed", edits: checkoutStores,
			page:   []string{"| 2xx | gets the stored answer"},
			status: 201, firstBody: body, retryBody: body, wantStatus: 201, wantRuns: 1},
		{name: "Azure: a 5xx runs again", edits: azureStores,
			page:    []string{"| 5xx other than 503 | runs the request again |", "A server error (5xx) is not stored, so the request sent again with the same key runs again"},
			openapi: []string{"after a 5xx or 408, 425, 429 or 503 it runs the request again"},
			status:  500, firstBody: body, retryBody: body, wantStatus: 500, wantRuns: 2},
		{name: "Azure: a 4xx is replayed", edits: azureStores,
			page:   []string{"| 4xx other than 408, 425 and 429 | gets the stored answer"},
			status: 400, firstBody: body, retryBody: body, wantStatus: 400, wantRuns: 1},
		{name: "Whop: another API version is another request", edits: whopIdentity,
			page:    []string{"byte for byte, and so do its Api-Version header; any other request with the key gets the payload-mismatch conflict."},
			openapi: []string{"and so do its Api-Version header"},
			status:  201, firstBody: body, retryBody: body, firstVersion: "2025-01", retryVersion: "2026-04", wantStatus: 409, wantRuns: 1},
		{name: "Whop: the same API version is replayed", edits: whopIdentity,
			status: 201, firstBody: body, retryBody: body, firstVersion: "2025-01", retryVersion: "2025-01", wantStatus: 201, wantRuns: 1},
		{name: "trace id and timestamp left out: replayed", edits: traceIdentity,
			page:    []string{"whitespace between tokens do not count, nor do its /trace_id, /sent_at members)"},
			openapi: []string{"nor do its /trace_id, /sent_at members"},
			status:  201, firstBody: traced, retryBody: strings.NewReplacer("t-1", "t-2", "03:04:05", "03:09:00").Replace(traced), wantStatus: 201, wantRuns: 1},
		{name: "trace id left out, amount counts", edits: traceIdentity,
			status: 201, firstBody: traced, retryBody: strings.Replace(traced, "1000", "1001", 1), wantStatus: 409, wantRuns: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := payoutsContract(t, tt.edits...)
			page := idempotencyPage(t, c)
			for _, want := range tt.page {
				// The page escapes Markdown syntax (the _ in /trace_id).
				if !strings.Contains(page, want) && !strings.Contains(page, render.EscapeMarkdown(want)) {
					t.Errorf("the Idempotent requests page does not say %q", want)
				}
			}
			desc := headerDescriptionOf(t, c)
			for _, want := range tt.openapi {
				if !strings.Contains(desc, want) {
					t.Errorf("the key header's OpenAPI description does not say %q:\n%s", want, desc)
				}
			}
			f := newFixture(t, c, openStore(t, "sqlite", c), idempotency.Options{})
			f.handler.status = tt.status
			send := func(body, version string) *httptest.ResponseRecorder {
				r := httptest.NewRequest("POST", "/v1/transfers", strings.NewReader(body))
				r.Header.Set("Idempotency-Key", "k1")
				r.Header.Set("X-Account", "acct_a")
				if version != "" {
					r.Header.Set("Api-Version", version)
				}
				w := httptest.NewRecorder()
				f.h.ServeHTTP(w, r)
				return w
			}
			if w := send(tt.firstBody, tt.firstVersion); w.Code != tt.status {
				t.Fatalf("first request: %d %s", w.Code, w.Body)
			}
			w := send(tt.retryBody, tt.retryVersion)
			if w.Code != tt.wantStatus {
				t.Errorf("retry answered %d %s, want %d", w.Code, w.Body, tt.wantStatus)
			}
			if runs := f.handler.runs.Load(); runs != tt.wantRuns {
				t.Errorf("the handler ran %d times, want %d", runs, tt.wantRuns)
			}
		})
	}
}

// markdownPages renders c's integrator pages as Markdown.
func markdownPages(t *testing.T, c *contract.Contract) []render.Page {
	t.Helper()
	tm, err := render.LoadTemplates("")
	if err != nil {
		t.Fatal(err)
	}
	pages, _, err := render.Markdown(render.Inputs{Contract: c}, tm)
	if err != nil {
		t.Fatal(err)
	}
	return pages
}

func idempotencyPage(t *testing.T, c *contract.Contract) string {
	t.Helper()
	for _, p := range markdownPages(t, c) {
		if p.Path == "idempotency.md" {
			return string(p.Markdown)
		}
	}
	t.Fatal("no idempotency.md page")
	return ""
}

func headerDescriptionOf(t *testing.T, c *contract.Contract) string {
	t.Helper()
	for _, e := range c.Endpoints {
		if !e.Keyed() {
			continue
		}
		for _, kv := range openapi.HeaderParameter(c, e) {
			if kv.K == "description" {
				return kv.V.(string)
			}
		}
	}
	t.Fatal("no keyed endpoint")
	return ""
}
