package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// StarterEndpoint is one operation for a starter contract. `init` passes a
// couple of examples; `init --openapi` passes the operations of a spec.
// Effect and Key may be empty: StarterDefaults fills them from the method.
type StarterEndpoint struct {
	Method  string
	Path    string
	Effect  string
	Key     string
	Summary string
	// Review, when set, is written as a `# review:` comment on the entry:
	// why this effect was proposed (init --openapi), for a human to confirm.
	// A PUT or DELETE with a Review is also written `reviewed: false`, which
	// check refuses (endpoint/unreviewed-effect) until a person has read the
	// handler: its method says nothing reliable about its effect.
	Review string
	// ExampleBody, when set, is the JSON request body written as the
	// endpoint's example: (the docs and snippets send it).
	ExampleBody string
	// ExternalCalls, when non-nil, answers the endpoint's external_calls
	// (an empty slice writes `external_calls: []`). Nil leaves the question
	// open for the team, as a comment that check reports.
	ExternalCalls []string
}

// StarterOptions are the inputs of Starter.
type StarterOptions struct {
	APIName string
	BaseURL string
	// Endpoints, when empty, are two examples (a create and a read).
	Endpoints []StarterEndpoint
	// Answered writes sample answers to the questions only the API's team
	// can answer (the longest retry chain, each endpoint's external calls),
	// so the result passes check with no findings: the base of the rule
	// examples and tests. init leaves it false, so the questions stay open
	// and check asks them; a placeholder answer would pass unread.
	Answered bool
}

// StarterDefaults classifies an operation by its method alone, the
// conservative guess a team then reviews: writes take a required key, reads
// none. PUT and DELETE are assumed to replace and delete; a PUT that appends
// or a DELETE that decrements must be reclassified by hand (the
// endpoint/method-trusted rule exists for that mistake).
func StarterDefaults(method string) (effect, key string) {
	switch strings.ToUpper(method) {
	case "GET", "HEAD", "OPTIONS", MethodQuery:
		return "read", "none"
	case "PUT":
		return "replace", "optional"
	case "DELETE":
		return "delete", "optional"
	case "PATCH":
		return "action", "required"
	}
	return "create", "required"
}

// Starter renders a commented contract: every section written out with the
// values the rules ask for. The answers only the team knows are left as
// questions that `retryspec check` reports until answered, unless
// o.Answered fills them with samples (then check passes it with no
// findings). Strings from the
// caller are written as double-quoted YAML scalars (JSON strings), so no
// name can break the file's structure.
func Starter(o StarterOptions) []byte {
	name := o.APIName
	if name == "" {
		name = "Example API"
	}
	base := o.BaseURL
	if base == "" {
		base = "https://api.example.com"
	}
	eps := o.Endpoints
	if len(eps) == 0 {
		eps = []StarterEndpoint{
			{Method: "POST", Path: "/v1/orders", Effect: "create", Key: "required", Summary: "Create an order", ExternalCalls: answered(o.Answered), ExampleBody: answeredBody(o.Answered)},
			{Method: "GET", Path: "/v1/orders/{id}", Effect: "read", Key: "none", Summary: "Fetch an order"},
		}
	}
	var b bytes.Buffer
	b.WriteString(starterHead)
	fmt.Fprintf(&b, "api:\n  name: %s\n  base_url: %s\n", quote(name), quote(base))
	b.WriteString(starterIdempotency)
	if o.Answered {
		b.WriteString(starterChainAnswered)
	} else {
		b.WriteString(starterChainQuestion)
	}
	b.WriteString(starterIdempotencyTail)
	b.WriteString("\n# Every operation, classified. A state-changing operation either takes a key\n")
	b.WriteString("# or says why it is unsafe to retry (unsafe_to_retry: \"...\").\n")
	b.WriteString("endpoints:\n")
	for _, e := range eps {
		writeStarterEndpoint(&b, e, "  ")
	}
	b.WriteString(starterRetry)
	fmt.Fprintf(&b, starterSDK, strings.Join(DefaultLanguages, ", "))
	return b.Bytes()
}

// quote writes s as a YAML double-quoted scalar. JSON string syntax is a
// subset of YAML's, and escapes quotes, backslashes and control characters.
func quote(s string) string {
	q, _ := json.Marshal(s)
	return string(q)
}

// oneLine trims a summary to one line of at most max runes, so an imported
// description cannot fail validText.
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	var out []rune
	for _, r := range s {
		if len(out) == max {
			break
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == '\u2028' || r == '\u2029' {
			continue
		}
		out = append(out, r)
	}
	return string(out)
}

const starterHead = `# retryspec contract: this API's idempotency-key contract and client retry
# policy. Check it with ` + "`retryspec check`" + `; ` + "`retryspec explain RULE`" + ` says why a
# rule fires. Every value below is a sound default; change what differs for
# your API and keep the reasons in the file.
retryspec: 1
`

const starterIdempotency = `
idempotency:
  header: Idempotency-Key
  header_value: plain            # plain | sf-string (quoted, as the IETF draft)
  key_source: client             # the client mints keys; a server hash cannot tell a retry from a second intent
  max_key_length: 255
  scope: account                 # keys are unique per (account, key), never globally
  derivation:                    # ranked for integrators, best first
    - kind: event-derived
      example: "order-{your_order_id}"
    - kind: request-scoped
    - kind: uuid-reused
  fingerprint: sha256-body       # same key with another body is rejected, not replayed
  claim:
    store: postgres
    mechanism: unique-constraint # the database picks the single winner
    same_transaction: true       # each phase's writes commit with its recovery point
  in_flight:
    response: conflict           # a second request while the first runs gets 409
    lock_timeout: 2m             # after this an abandoned claim may be taken over
    takeover: conditional-update
  conflicts:
    payload_mismatch: { status: 409, code: invalid_idempotent_request }
    in_flight: { status: 409, code: concurrent_idempotent_requests }
    missing_key: { status: 400, code: missing_idempotency_key }
  stored_failures: replay        # replay stored failures verbatim | reattempt
  stored_response: verbatim
  replay_window: 24h             # must cover the longest retry chain below
  reaper_after: 72h              # records outlive the window for human recovery
`

// starterChainQuestion leaves longest_retry_chain to the team: check asks
// for it (window/retry-chain-unstated) until it is written.
const starterChainQuestion = `  # longest_retry_chain: only you know it. The SDK's own retries end within
  # max_elapsed (60s below); is one intent ever re-submitted later, by a
  # dead-letter replay, a runbook, or a caller re-sending a webhook? Write the
  # slowest such path, e.g.
  #   longest_retry_chain: { duration: 6h, because: "webhook re-sends" }
  # retryspec check reports the contract until this is answered.
`

const starterChainAnswered = `  longest_retry_chain:
    duration: 1h
    because: "SDK retries only; no queued re-submits"
`

const starterIdempotencyTail = `  after_window: new-request      # a key reused after the window is a new request
  recovery:
    completer: true              # a job pushes abandoned requests to completion
    reaper: true                 # a job deletes expired keys and logs leftovers
`

const starterRetry = `
retry:
  statuses: [429, 502, 503, 504] # retried; never other 4xx
  cautious_statuses: [500]       # retried at most once
  connection_errors: [timeout, reset, refused]
  honor_retry_after: true
  backoff:
    jitter: full                 # sleep = random(0, min(cap, base * multiplier^n))
    base: 1s
    cap: 30s
    multiplier: 2
  max_attempts: 3                # including the first
  max_elapsed: 60s               # bound on the whole loop
  attempt_timeout:
    p99: 800ms                   # replace with your measured p99
    factor: 2.5                  # 2-3x p99
  deadline: overall
  propagate_deadline: true
  log_retries: true
  budget:
    kind: token-bucket           # AWS SDK standard mode's figures
    capacity: 500
    transient_cost: 14
    throttle_cost: 5
    success_refund: 1
  stacking: [retry, circuit-breaker, rate-limiter, bulkhead]
`

// starterSDK lists the registry's default languages (DefaultLanguages).
const starterSDK = `
sdk:
  languages: [%s]
  retries: on
  auto_idempotency_key: true
`

// answered is the sample external_calls answer for Starter's example
// create: none, when the caller asked for answers; the open question
// otherwise.
func answered(yes bool) []string {
	if yes {
		return []string{}
	}
	return nil
}

// writeStarterAnswers writes an endpoint's answers, or the questions that
// stay open for the team.
func writeStarterAnswers(b *bytes.Buffer, e StarterEndpoint, effect, key string) {
	if e.ExternalCalls != nil {
		q := make([]string, len(e.ExternalCalls))
		for i, c := range e.ExternalCalls {
			q[i] = quote(c)
		}
		fmt.Fprintf(b, "  external_calls: [%s]\n", strings.Join(q, ", "))
	} else if (key == "required" || key == "optional") && effect != "read" {
		b.WriteString("  # external_calls: does the handler charge, email or call another system? [] if not\n")
	}
	if m := strings.ToUpper(e.Method); e.Review != "" && (m == "PUT" || m == "DELETE") {
		b.WriteString("  reviewed: false              # read the handler: appends, counters, notifications?\n")
	}
}

// StarterEndpoints writes endpoint entries as Starter does, each line
// prefixed by indent (the column of the list's dashes in the file they join):
// the text `init --openapi --update` inserts into an existing contract.
func StarterEndpoints(eps []StarterEndpoint, indent string) []byte {
	var b bytes.Buffer
	for _, e := range eps {
		writeStarterEndpoint(&b, e, indent)
	}
	return b.Bytes()
}

// writeStarterEndpoint writes one endpoint entry, its dash after indent.
func writeStarterEndpoint(b *bytes.Buffer, e StarterEndpoint, indent string) {
	var one bytes.Buffer
	writeStarterEntry(&one, e)
	for _, line := range strings.SplitAfter(one.String(), "\n") {
		if line != "" {
			b.WriteString(indent + line)
		}
	}
}

func writeStarterEntry(b *bytes.Buffer, e StarterEndpoint) {
	effect, key := StarterDefaults(e.Method)
	if e.Effect != "" {
		effect = e.Effect
	}
	if e.Key != "" {
		key = e.Key
	}
	fmt.Fprintf(b, "- operation: %s", quote(strings.ToUpper(e.Method)+" "+e.Path))
	if r := oneLine(e.Review, 300); r != "" {
		fmt.Fprintf(b, "   # review: %s", r)
	}
	b.WriteString("\n")
	fmt.Fprintf(b, "  effect: %s\n", quote(effect))
	fmt.Fprintf(b, "  key: %s\n", quote(key))
	if s := oneLine(e.Summary, 200); s != "" {
		fmt.Fprintf(b, "  summary: %s\n", quote(s))
	}
	writeStarterAnswers(b, e, effect, key)
	// The body is written back as the JSON it parses to (JSON is YAML
	// flow syntax), so no text of the caller's can break the file.
	if v, err := ParseExampleBody([]byte(e.ExampleBody)); e.ExampleBody != "" && err == nil {
		fmt.Fprintf(b, "  example:\n    body: %s\n", v)
	}
}

// answeredBody is the sample example request of an answered starter; init
// leaves it out, so check asks for the API's own (endpoint/no-example-request).
func answeredBody(answered bool) string {
	if !answered {
		return ""
	}
	return `{"sku": "SKU-1042", "quantity": 1}`
}
