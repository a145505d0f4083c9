package idempotency_test

import (
	"bytes"
	"database/sql"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/idempotency"
)

// storedPolicies are the ways a contract says which answers are stored:
// today's stored_failures alone, and each stored_outcomes.
// wantStored is the classes each stores, as the contract reference
// defines them (the page's first column starts with the class).
var storedPolicies = []struct{ policy, wantStored string }{
	{"stored_failures: replay", "2xx 3xx 4xx 5xx"},
	{"stored_failures: reattempt", "2xx 3xx 4xx"},
	{"stored_outcomes: 2xx", "2xx"},
	{"stored_outcomes: 2xx-4xx", "2xx 3xx 4xx"},
	{"stored_outcomes: 2xx-5xx", "2xx 3xx 4xx 5xx"},
}

// docsRow is one row of "What a retry with the same key returns" on the
// Idempotent requests page: the statuses it covers and whether it says a
// retry gets the stored answer.
type docsRow struct {
	text     string
	statuses []int
	stored   bool
}

var (
	storedTableRow = regexp.MustCompile(`(?m)^\| ([^|]+) \| (gets the stored answer|runs the request again)[^|]*\|$`)
	statusNumber   = regexp.MustCompile(`\b[1-5][0-9][0-9]\b`)
)

// storedDocs reads the table from the page as rendered for c, and turns
// each row into statuses to send: a class row stands for a few statuses of
// the class other than the ones it names, a list row for its statuses.
func storedDocs(t *testing.T, c *contract.Contract) []docsRow {
	t.Helper()
	page := []byte(idempotencyPage(t, c))
	_, section, ok := bytes.Cut(page, []byte("## What a retry with the same key returns\n"))
	if !ok {
		t.Fatal("the Idempotent requests page has no section \"What a retry with the same key returns\"")
	}
	class := map[string][]int{"2xx": {200, 201, 204}, "3xx": {302}, "4xx": {400, 402, 404, 409, 422, 408, 429}, "5xx": {500, 501, 502, 504, 503}}
	var rows []docsRow
	for _, m := range storedTableRow.FindAllSubmatch(section, -1) {
		text := strings.TrimSpace(string(m[1]))
		r := docsRow{text: text, stored: string(m[2]) == "gets the stored answer"}
		var named []int
		for _, n := range statusNumber.FindAllString(text, -1) {
			v, _ := strconv.Atoi(n)
			named = append(named, v)
		}
		if reps, ok := class[text[:3]]; ok {
			for _, s := range reps {
				if !containsInt(named, s) {
					r.statuses = append(r.statuses, s)
				}
			}
		} else {
			r.statuses = named
		}
		rows = append(rows, r)
	}
	if len(rows) != 5 {
		t.Fatalf("the table has %d rows, want 5:\n%s", len(rows), section)
	}
	return rows
}

func containsInt(ss []int, s int) bool {
	for _, v := range ss {
		if v == s {
			return true
		}
	}
	return false
}

// finishing answers with status and then completes the key with Finish,
// the handler pattern for a last phase with writes.
type finishing struct {
	status int
	runs   int
	err    error
}

func (h *finishing) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.runs++
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(h.status)
	_, _ = w.Write([]byte(`{"run":` + strconv.Itoa(h.runs) + `}`))
	h.err = idempotency.FromContext(r.Context()).Finish(r.Context(), func(*sql.Tx) error { return nil })
}

// TestStoredOutcomesAsDocumented: for each way a contract states what is
// stored, the Idempotent requests page's table and the middleware on
// SQLite agree, status by status: a row that says a retry gets the stored
// answer is replayed (the handler ran once), a row that says the request
// runs again runs the handler again. Both ways a handler ends are
// covered: writing the response, and Finish with the last phase's writes
// (which refuses, with ErrNotStored, a status the contract does not store).
func TestStoredOutcomesAsDocumented(t *testing.T) {
	for _, tt := range storedPolicies {
		t.Run(tt.policy, func(t *testing.T) {
			c := payoutsContract(t, "stored_failures: replay", tt.policy)
			rows := storedDocs(t, c)
			var stored []string
			for _, row := range rows {
				if row.stored {
					stored = append(stored, row.text[:3])
				}
			}
			if got := strings.Join(stored, " "); got != tt.wantStored {
				t.Errorf("the page says %s are stored, want %s", got, tt.wantStored)
			}
			for _, row := range rows {
				for _, status := range row.statuses {
					if got := c.Idempotency.Stores(status); got != row.stored {
						t.Errorf("row %q: the page says stored %v for %d, contract.Stores says %v", row.text, row.stored, status, got)
					}
					t.Run(strconv.Itoa(status), func(t *testing.T) {
						store := openStore(t, "sqlite", c)
						f := newFixture(t, c, store, idempotency.Options{})
						f.handler.status = status
						first := f.do("k-"+strconv.Itoa(status), "acct_a", body)
						again := f.do("k-"+strconv.Itoa(status), "acct_a", body)
						wantRuns := int64(2)
						if row.stored {
							wantRuns = 1
						}
						if first.Code != status || again.Code != status {
							t.Errorf("answers %d then %d, want the handler's %d", first.Code, again.Code, status)
						}
						if runs := f.handler.runs.Load(); runs != wantRuns {
							t.Errorf("the page says %q for %q; the handler ran %d times, want %d", rowVerdict(row), row.text, runs, wantRuns)
						}
						if row.stored && (again.Header().Get("Idempotent-Replayed") != "true" || !bytes.Equal(first.Body.Bytes(), again.Body.Bytes())) {
							t.Errorf("the retry is not the stored answer: %q then %q", first.Body, again.Body)
						}

						// The same through Finish.
						h := &finishing{status: status}
						mw, err := idempotency.New(c, store, idempotency.Options{Now: f.clock.Now, Account: func(*http.Request) (string, bool) { return "acct_f", true }})
						if err != nil {
							t.Fatal(err)
						}
						fh, err := mw.Handle("POST /v1/transfers", h)
						if err != nil {
							t.Fatal(err)
						}
						for range 2 {
							r := httptest.NewRequest("POST", "/v1/transfers", strings.NewReader(body))
							r.Header.Set("Idempotency-Key", "f-"+strconv.Itoa(status))
							w := httptest.NewRecorder()
							fh.ServeHTTP(w, r)
							if w.Code != status {
								t.Errorf("Finish: answered %d, want the handler's %d", w.Code, status)
							}
						}
						if int64(h.runs) != wantRuns {
							t.Errorf("Finish: the handler ran %d times, want %d (page: %q for %q; Finish returned %v)", h.runs, wantRuns, rowVerdict(row), row.text, h.err)
						}
						if !row.stored && h.err == nil {
							t.Errorf("Finish returned nil for an unstored %d", status)
						}
					})
				}
			}
		})
	}
}

func rowVerdict(r docsRow) string {
	if r.stored {
		return "gets the stored answer"
	}
	return "runs the request again"
}
