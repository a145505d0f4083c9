package contract

import (
	"strings"
	"testing"
	"time"
)

const azureLike = `retryspec: 1
api: { name: Mail, base_url: "https://mail.example" }
idempotency:
  header: Repeatability-Request-Id
  replay_window: 5m
  first_sent: { header: Repeatability-First-Sent, window: 5m }
  result_header: { name: Repeatability-Result }
  conflicts:
    payload_mismatch: { status: 400, code: none }
    too_old: { status: 412, code: none }
`

// TestFirstSentAndResultHeader (issue 32 items 2 and 4): the first-sent
// window, its too-old answer and the result header load as written.
func TestFirstSentAndResultHeader(t *testing.T) {
	c := mustParse(t, azureLike)
	id := c.Idempotency
	if id.FirstSent.Header != "Repeatability-First-Sent" || id.FirstSent.Window.D != 5*time.Minute || !id.FirstSent.Set() {
		t.Errorf("first_sent = %+v", id.FirstSent)
	}
	if id.ResultHeader != (ResultHeader{Name: "Repeatability-Result", Accepted: "accepted", Rejected: "rejected"}) {
		t.Errorf("result_header = %+v", id.ResultHeader)
	}
	if id.Conflicts.TooOld != (Conflict{Status: 412}) {
		t.Errorf("too_old = %+v", id.Conflicts.TooOld)
	}
	r := c.Reply(ReplyTooOld)
	if r.Status != 412 || strings.Contains(string(r.Bytes()), `"code"`) || !strings.Contains(r.Message, "Repeatability-First-Sent") {
		t.Errorf("too-old reply %d %s", r.Status, r.Bytes())
	}
	if m := c.Reply(ReplyPayloadMismatch).Bytes(); strings.Contains(string(m), `"code"`) {
		t.Errorf("a conflict without a code renders a code member: %s", m)
	}
	if m := c.Reply(ReplyInvalidKey).Message; !strings.Contains(m, "Repeatability-First-Sent header must be an HTTP date") {
		t.Errorf("invalid-key message does not name the first-sent header: %q", m)
	}
	var names []string
	for _, cf := range c.AnsweredConflicts() {
		names = append(names, cf.Name)
	}
	if got := strings.Join(names, " "); got != "payload_mismatch in_flight missing_key invalid_key too_old" {
		t.Errorf("answered conflicts: %s", got)
	}
	for k, want := range map[ReplyKind]string{ReplyInFlight: "accepted", ReplyInFlightAccepted: "accepted", ReplyPayloadMismatch: "rejected",
		ReplyTooOld: "rejected", ReplyMissingKey: "rejected", ReplyInvalidKey: "rejected", ReplyStoreUnavailable: "rejected"} {
		if got := c.ResultValue(k); got != want {
			t.Errorf("ResultValue(%d) = %q, want %q", k, got, want)
		}
	}
}

// TestNoFirstSentNoTooOld: a contract without a first-sent window holds no
// too-old answer (so nothing about it reaches an output), unless it writes one.
func TestNoFirstSentNoTooOld(t *testing.T) {
	c := mustParse(t, answersBase)
	if c.Idempotency.Conflicts.TooOld != (Conflict{}) || c.Idempotency.FirstSent.Set() || c.Idempotency.ResultHeader.Set() || c.ResultValue(ReplyTooOld) != "" {
		t.Errorf("defaults: %+v %+v %+v", c.Idempotency.Conflicts.TooOld, c.Idempotency.FirstSent, c.Idempotency.ResultHeader)
	}
	for _, cf := range c.AnsweredConflicts() {
		if cf.Name == "too_old" {
			t.Error("too_old answered without a first-sent window")
		}
	}
	c = mustParse(t, strings.Replace(azureLike, "  first_sent: { header: Repeatability-First-Sent, window: 5m }\n", "", 1))
	if c.Idempotency.Conflicts.TooOld.Status != 412 {
		t.Errorf("a written too_old is dropped: %+v", c.Idempotency.Conflicts.TooOld)
	}
	c = mustParse(t, strings.Replace(azureLike, "    too_old: { status: 412, code: none }\n", "", 1))
	if c.Idempotency.Conflicts.TooOld != defaultTooOld {
		t.Errorf("default too_old = %+v", c.Idempotency.Conflicts.TooOld)
	}
}

// TestFirstSentBadInput: each mistake is an error at its place with a fix.
func TestFirstSentBadInput(t *testing.T) {
	for _, tc := range []struct{ name, from, to, want string }{
		{"window missing", "header: Repeatability-First-Sent, window: 5m", "header: Repeatability-First-Sent", "first_sent needs window:"},
		{"key header reused", "header: Repeatability-First-Sent,", "header: repeatability-request-id,", "is the key's own header"},
		{"window too long", "window: 5m }", "window: 8d }", "longer than 7d"},
		{"unknown key", "window: 5m }", "window: 5m, windw: 1m }", "windw"},
		{"name missing", "{ name: Repeatability-Result }", "{ accepted: ok }", "result_header needs name:"},
		{"same values", "{ name: Repeatability-Result }", "{ name: Repeatability-Result, accepted: ok, rejected: ok }", "cannot tell them apart"},
		{"value not a token", "{ name: Repeatability-Result }", `{ name: Repeatability-Result, accepted: "o k" }`, "result_header.accepted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(azureLike, tc.from, tc.to, 1)
			if src == azureLike {
				t.Fatal("the case changes nothing")
			}
			_, err := Parse("retryspec.yaml", []byte(src))
			le, ok := err.(*LoadError)
			if !ok {
				t.Fatalf("err = %v, want a load error", err)
			}
			found := false
			for _, d := range le.Diagnostics {
				if strings.Contains(d.Message, tc.want) && d.Pos.Line > 0 && d.Fix != "" {
					found = true
				}
			}
			if !found {
				t.Errorf("no diagnostic with %q, a position and a fix: %v", tc.want, err)
			}
		})
	}
}
