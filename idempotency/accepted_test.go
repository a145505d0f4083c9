package idempotency_test

import (
	"strings"
	"testing"
	"time"

	"github.com/retryspec/retryspec/contract/diff"
	"github.com/retryspec/retryspec/contract/rules"
	"github.com/retryspec/retryspec/idempotency"
	"github.com/retryspec/retryspec/render"
)

// TestAcceptedModeAsDocumented: under in_flight.response: accepted a retry
// of a key in flight gets 202 with Retry-After and the in-flight code, and
// the Idempotent requests page says exactly that: no status URL, which the
// middleware has none of (the page promised one before).
func TestAcceptedModeAsDocumented(t *testing.T) {
	c := payoutsContract(t, "response: conflict", "response: accepted")
	f := newFixture(t, c, idempotency.NewMemoryStore(c), idempotency.Options{})
	f.handler.gate, f.handler.gatedRuns = make(chan struct{}), 1
	defer close(f.handler.gate)
	go f.do("acc", "acct_a", body)
	for f.handler.runs.Load() == 0 {
		time.Sleep(time.Millisecond) // waits for the run to start; not a time bound
	}
	w := f.do("acc", "acct_a", body)
	if w.Code != 202 || w.Header().Get("Retry-After") == "" || code(t, w) != c.Idempotency.Conflicts.InFlight.Code || w.Header().Get("Location") != "" {
		t.Fatalf("in flight under accepted: %d %v %s", w.Code, w.Header(), w.Body)
	}
	tmpl, err := render.LoadTemplates("")
	if err != nil {
		t.Fatal(err)
	}
	pages, files, err := render.Markdown(render.Inputs{Contract: c}, tmpl)
	if err != nil {
		t.Fatal(err)
	}
	// The key-states figure and the texts of the rules and of diff say
	// the same: the 202 carries no status URL; the same key's retry is the poll.
	for _, f := range files {
		if f.Path == render.StatesImage && (strings.Contains(string(f.Data), "URL") || !strings.Contains(string(f.Data), "retrying with the same key")) {
			t.Errorf("%s promises something else than the middleware does:\n%s", f.Path, f.Data)
		}
	}
	for _, r := range rules.Catalog() {
		if doc := r.Doc(); strings.Contains(doc.Rationale+doc.Fix, "status URL") {
			t.Errorf("rule %s still promises a status URL under accepted", r.ID)
		}
	}
	for _, f := range diff.Table {
		for _, o := range f.By {
			if strings.Contains(o.Migration, "status URL") {
				t.Errorf("diff's row for %s still tells clients to poll a status URL", f.Field)
			}
		}
	}
	for _, p := range pages {
		if p.Path != "idempotency.md" {
			continue
		}
		md := string(p.Markdown)
		if strings.Contains(md, "URL to poll for the result") || !strings.Contains(md, "`202 Accepted` with the `"+c.Idempotency.Conflicts.InFlight.Code+"` code") ||
			!strings.Contains(md, "the repeat with the same key is the poll") {
			t.Errorf("the Idempotent requests page does not say what the middleware does:\n%s", md)
		}
		return
	}
	t.Fatal("no idempotency.md page")
}
