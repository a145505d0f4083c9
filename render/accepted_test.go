package render

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/internal/testenv"
	"github.com/retryspec/retryspec/snippets"
)

// TestAcceptedPagesSayWhatSnippetsDo: under in_flight.response: accepted
// the pages tell a 202 carrying the in-flight code (contract.Reply's, the
// middleware's bytes) from the result and say to poll it with the same key
// on the backoff schedule: what the snippet of the same contract does
// (snippets.Policy). With `code: none` they say every 202 is taken for it,
// as the snippet does; under conflict they keep to the conflict.
func TestAcceptedPagesSayWhatSnippetsDo(t *testing.T) {
	for _, tt := range []struct {
		name string
		mode contract.InFlightMode
		code string
		// result names a result header (Repeatability-Result), whose
		// column the 202's row fills as the server sends it.
		result bool
		want   []string // per page, "page: text"
		not    []string
	}{
		{"accepted", contract.InFlightAccepted, "concurrent_idempotent_requests", false, []string{
			"idempotency.md: | Same key while the first request is still running | 202 | `concurrent_idempotent_requests` | Not the result. Wait, then send the same request with the same key and body, following the backoff schedule, until the stored result comes back. |",
			"idempotency.md: gets `202 Accepted` with the `concurrent_idempotent_requests` code: the first request is still running, and this answer is not its result.",
			"idempotency.md: the repeat with the same key is the poll. Wait, following the backoff schedule,",
			"idempotency.md: A 202 without that code is the endpoint's own answer, and is the result.",
			"errors.md: | `concurrent_idempotent_requests` | 202 | A request with this key is still being processed; this answer is not its result. | Yes:",
			"retrying.md: | `202 concurrent_idempotent_requests`, a success in form only | yes, after a wait |",
		}, []string{"idempotency.md: Retry-After` header", "retrying.md: | `409 concurrent_idempotent_requests` |", "errors.md: | `concurrent_idempotent_requests` | 409 |"}},
		{"accepted, code none", contract.InFlightAccepted, "", false, []string{
			"idempotency.md: | Same key while the first request is still running | 202 | none (status only) |",
			"idempotency.md: This answer carries no code, so a client takes every 202 from a keyed endpoint for it.",
			"retrying.md: | `202`, a success in form only | yes, after a wait |",
		}, []string{"idempotency.md: with the `", "idempotency.md: endpoint's own answer"}},
		{"accepted, result header", contract.InFlightAccepted, "concurrent_idempotent_requests", true, []string{
			"idempotency.md: | Same key while the first request is still running | 202 | `concurrent_idempotent_requests` | Not the result. Wait, then send the same request with the same key and body, following the backoff schedule, until the stored result comes back. | `accepted` |",
		}, nil},
		{"conflict", contract.InFlightConflict, "concurrent_idempotent_requests", false, []string{
			"retrying.md: | `409 concurrent_idempotent_requests` | yes, after a wait |",
		}, []string{"retrying.md: 202", "idempotency.md: 202", "errors.md: 202"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := load(t, filepath.Join(testenv.RepoRoot(t), "examples", "payouts", "retryspec.yaml"))
			c.Idempotency.InFlight.Response = tt.mode
			c.Idempotency.Conflicts.InFlight.Code = tt.code
			if tt.result {
				c.Idempotency.ResultHeader = contract.ResultHeader{Name: "Repeatability-Result", Accepted: "accepted", Rejected: "rejected"}
			}
			p, err := snippets.NewPolicy(c)
			if err != nil {
				t.Fatal(err)
			}
			rep := c.Reply(contract.ReplyInFlightAccepted)
			if polls := p.InFlightAccepted && p.InFlightStatus == rep.Status && p.InFlightCode == rep.Code; polls != (tt.mode == contract.InFlightAccepted) {
				t.Fatalf("the snippet polls the in-flight %d %q: %v, under %s", p.InFlightStatus, p.InFlightCode, polls, tt.mode)
			}
			ps := pages(t, Inputs{Contract: c})
			check := func(spec string, present bool) {
				name, text, _ := strings.Cut(spec, ": ")
				if strings.Contains(ps[name], text) != present {
					t.Errorf("%s: contains %q is %v, want %v", name, text, !present, present)
				}
			}
			for _, w := range tt.want {
				check(w, true)
			}
			for _, n := range tt.not {
				check(n, false)
			}
			if tt.mode == contract.InFlightAccepted && !strings.Contains(ps["idempotency.md"], "```json\n"+rep.Indented()+"```") {
				t.Errorf("the Idempotent requests page does not show the 202's body as the middleware sends it:\n%s", rep.Indented())
			}
		})
	}
}
