package rules

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/findings"
)

// effectWords are the verbs in an endpoint's summary that say each call
// changes state again, whatever the method promises, with the effect each
// one names. Stems, so "appends", "charged" and "sending" match too.
var effectWords = regexp.MustCompile(`(?i)\b(?:(append)|(increment)|(decrement)|(send|sent)|(charge))(?:s|es|ed|ing)?\b`)

// effectOfWord is the effect the nth group of effectWords names.
var effectOfWord = []contract.Effect{contract.EffectAppend, contract.EffectIncrement, contract.EffectDecrement, contract.EffectAction, contract.EffectAction}

// summaryEffect returns the first word of an endpoint's summary that says
// the call repeats its effect, and that effect, or "".
func summaryEffect(summary string) (string, contract.Effect) {
	m := effectWords.FindStringSubmatchIndex(summary)
	if m == nil {
		return "", ""
	}
	for g := range effectOfWord {
		if m[2+2*g] >= 0 {
			return summary[m[0]:m[1]], effectOfWord[g]
		}
	}
	return "", ""
}

const summaryContradictsID = "endpoint/summary-contradicts-effect"

// firstRunRules catch what day-one contracts most often get past check:
// a schedule whose jitter was never chosen, a handler that calls other
// systems without a stated worst case, and a PUT or DELETE whose own
// summary says it is not idempotent.
var firstRunRules = []Rule{
	{
		ID:       "retry/jitter-unstated",
		Severity: findings.Error,
		Scope:    ScopeContract,
		Summary:  "retry.backoff gives a schedule but does not choose its jitter",
		Rationale: "Jitter decides whether a fleet that failed together retries together. A schedule written without it " +
			"(base: 100ms, cap: 100ms, multiplier: 1) reads to its author as \"100 ms between attempts\", the lock-step retry " +
			"that re-creates the spike that caused the failures; filling in a jitter for them would publish docs and SDK " +
			"defaults nobody chose. Marc Brooker's AWS analysis ranks full jitter first (least total work), decorrelated " +
			"jitter for a tight user-facing deadline, and no jitter last: the contract states the choice.",
		Sources: []findings.Source{srcBrooker, srcTimeout},
		Fix:     "add retry.backoff.jitter: full (or decorrelated with because:)",
		Bad:     "retry:\n  backoff:\n    jitter: ~\n    base: 1s\n    cap: 30s\n    multiplier: 2\n",
		Good:    "retry:\n  backoff:\n    jitter: full\n    base: 1s\n    cap: 30s\n    multiplier: 2\n",
		Fixed:   "retry:\n  backoff:\n    jitter: full\n",
		Check: func(c *contract.Contract) []findings.Finding {
			b := c.Retry.Backoff
			if !b.JitterUnstated() {
				return nil
			}
			return []findings.Finding{at(c, findings.Finding{Path: "retry.backoff",
				Message: fmt.Sprintf("retry.backoff (base %s, cap %s, multiplier %g) does not say which jitter clients use: as written it reads as "+
					"a fixed schedule that a whole fleet retries in step; the contract must choose", b.Base, b.Cap, b.Multiplier),
				Fix: "add jitter: full under retry.backoff: each wait is random between 0 and the schedule's delay"})}
		},
	},
	{
		ID:       "endpoint/max-duration-unstated",
		Severity: findings.Error,
		Scope:    ScopeContract,
		Summary:  "a keyed endpoint that calls other systems does not state how long it may run",
		Rationale: "A claim older than lock_timeout is treated as abandoned and can be taken over. A handler that waits on a card " +
			"network or a partner API can run far past the client's attempt timeout, so the lock must be compared with the " +
			"handler's own worst case, which only the team knows: max_duration states it, as external_calls states the calls. " +
			"Without it a takeover can start while the first request's slow call is still running, and both run the effect " +
			"(Brandur Leach's locked_at design).",
		Sources: []findings.Source{srcBrandur},
		Fix:     "add max_duration: to the endpoint (its worst case, external calls included) and keep in_flight.lock_timeout above it",
		Bad: endpointBase + "  - operation: POST /v1/orders\n    effect: create\n    key: required\n" +
			"    external_calls: [charge_card]\n    recovery_points: [started, card_charged, finished]\n" + withExample,
		Good: endpointBase + "  - operation: POST /v1/orders\n    effect: create\n    key: required\n" +
			"    external_calls: [charge_card]\n    recovery_points: [started, card_charged, finished]\n    max_duration: 45s\n" + withExample,
		Fixed: "endpoints:\n  - operation: GET /v1/orders/{id}\n    effect: read\n    key: none\n  - operation: POST /v1/orders\n    effect: create\n    key: required\n" +
			"    external_calls: [charge_card]\n    recovery_points: [started, card_charged, finished]\n    max_duration: 1m\n" + withExample,
		Check: func(c *contract.Contract) []findings.Finding {
			var out []findings.Finding
			lock := "its lock_timeout"
			if in := c.Idempotency.InFlight; in != nil && !in.LockTimeout.IsZero() {
				lock = "lock_timeout " + in.LockTimeout.String()
			}
			for i, e := range c.Endpoints {
				if !e.Keyed() || len(e.ExternalCalls) == 0 || !e.MaxDuration.IsZero() {
					continue
				}
				out = append(out, at(c, findings.Finding{Path: fmt.Sprintf("endpoints[%d]", i),
					Message: fmt.Sprintf("%s calls %s but states no max_duration: %s cannot be compared with how long the handler may run, "+
						"and a takeover may start while the first request's call is still running", e.Operation, strings.Join(e.ExternalCalls, ", "), lock),
					Fix: fmt.Sprintf("add max_duration: with the handler's measured worst case, external calls included, and keep %s above it (for example max_duration: %s)", lock, suggestMaxDuration(c))}))
			}
			return out
		},
	},
	{
		ID:       summaryContradictsID,
		Severity: findings.Error,
		Scope:    ScopeContract,
		Summary:  "a PUT or DELETE is classified idempotent by its method while its own summary says it appends, counts, sends or charges",
		Rationale: "RFC 9110 defines which methods are idempotent and says nothing about an idempotency key: a PUT is idempotent only " +
			"when its handler makes it so. When the endpoint's own summary (written in the contract, or copied from the OpenAPI " +
			"spec by init --openapi) says it appends, increments, decrements, sends or charges, each retry does that again, and an " +
			"effect of replace or delete taken from the method tells integrators a blind retry is safe. Verify the behaviour, do " +
			"not trust the method.",
		Sources: []findings.Source{srcRFC9110},
		Fix:     "set the effect the summary describes (append, increment, decrement or action) with key: required, or correct the summary",
		Bad:     endpointBase + "  - operation: PUT /v1/carts/{id}/items\n    effect: replace\n    key: none\n    summary: Appends an item to the cart\n" + withExample,
		Good:    endpointBase + "  - operation: PUT /v1/carts/{id}/items\n    effect: append\n    key: required\n    external_calls: []\n    summary: Appends an item to the cart\n" + withExample,
		Fixed:   "endpoints:\n  - operation: GET /v1/orders/{id}\n    effect: read\n    key: none\n  - operation: PUT /v1/carts/{id}/items\n    effect: append\n    key: required\n    external_calls: []\n    summary: Appends an item to the cart\n" + withExample,
		Check: func(c *contract.Contract) []findings.Finding {
			var out []findings.Finding
			for i, e := range c.Endpoints {
				if f, ok := summaryContradicts(c, i, e.Summary, "its summary"); ok {
					out = append(out, f)
				}
			}
			return out
		},
	},
}

// summaryContradicts is endpoint/summary-contradicts-effect on one
// endpoint, judging text (its summary, named by whose) for a word that says
// each call repeats its effect. The finding is placed at the endpoint's
// effect, where the fix goes.
func summaryContradicts(c *contract.Contract, i int, text, whose string) (findings.Finding, bool) {
	e := c.Endpoints[i]
	if (e.Method != "PUT" && e.Method != "DELETE") || !e.NaturallyIdempotent() {
		return findings.Finding{}, false
	}
	word, effect := summaryEffect(text)
	if word == "" {
		return findings.Finding{}, false
	}
	return at(c, findings.Finding{Path: fmt.Sprintf("endpoints[%d].effect", i),
		Message: fmt.Sprintf("%s has effect %s, as its method suggests, but %s says %q (%q): a retry %s again", e.Operation, e.Effect, whose, word, text, repeatWhat[effect]),
		Fix:     fmt.Sprintf("set effect: %s and key: required, answering external_calls: ([] when the handler calls nothing else); or correct %s if the handler does not do what %q says", effect, whose, word)}), true
}

// SpecSummaryContradicts is openapi/summary-contradicts-effect: the word
// matcher of endpoint/summary-contradicts-effect on the words the OpenAPI
// spec (file specFile) gives endpoint i's operation, for `check --openapi`:
// its summary, then its description. The contract's own summary is judged
// by endpoint/summary-contradicts-effect, so when that fires there is
// nothing to add. A rule of its own, so a waiver of it is judged only
// where a spec is.
func SpecSummaryContradicts(c *contract.Contract, i int, specFile, summary, description string) (findings.Finding, bool) {
	if _, dup := summaryContradicts(c, i, c.Endpoints[i].Summary, ""); dup {
		return findings.Finding{}, false
	}
	for _, t := range []struct{ text, field string }{{summary, "summary"}, {description, "description"}} {
		if f, ok := summaryContradicts(c, i, sentenceOf(t.text), fmt.Sprintf("its %s in %s", t.field, specFile)); ok {
			r, _ := ByID(OpenAPISummaryContradicts)
			f.Rule, f.Severity = r.ID, r.Severity
			return f, true
		}
	}
	return findings.Finding{}, false
}

// sentenceOf is the sentence of a spec's summary or description holding
// its first effect word, on one line: a description can run to pages, and
// the finding quotes only the words that contradict the effect.
func sentenceOf(text string) string {
	text = strings.Join(strings.Fields(text), " ")
	m := effectWords.FindStringIndex(text)
	if m == nil {
		return text
	}
	start, end := 0, len(text)
	if k := strings.LastIndex(text[:m[0]], ". "); k >= 0 {
		start = k + 2
	}
	if k := strings.Index(text[m[1]:], ". "); k >= 0 {
		end = m[1] + k + 1
	}
	return text[start:end]
}

// repeatWhat says what a retry of each effect the summary names repeats.
var repeatWhat = map[contract.Effect]string{contract.EffectAppend: "appends", contract.EffectIncrement: "increments",
	contract.EffectDecrement: "decrements", contract.EffectAction: "sends or charges"}

// suggestMaxDuration is a worst case to start from: half the lock, so the
// lock outlasts it, or the attempt timeout when there is no lock.
func suggestMaxDuration(c *contract.Contract) string {
	if in := c.Idempotency.InFlight; in != nil && !in.LockTimeout.IsZero() {
		return contract.FormatDuration(in.LockTimeout.D / 2)
	}
	return contract.FormatDuration(c.Retry.AttemptTimeout.Value().D)
}
