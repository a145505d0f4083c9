package openapi

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/retryspec/retryspec/contract"
)

// The values retryspec adds. Every figure and name comes from the
// contract; the sentences around them are written here once.

// HeaderParameter is the idempotency-key header parameter of one endpoint.
func HeaderParameter(c *contract.Contract, e contract.Endpoint) Obj {
	id := c.Idempotency
	return obj(
		"name", id.Header,
		"in", "header",
		"required", e.Key == contract.KeyRequired,
		"description", headerDescription(c, e),
		"schema", obj("type", "string", "maxLength", c.MaxKeyLengthFor(e)),
	)
}

// BodyKeyProperty is the request body member that carries the key of one
// endpoint (idempotency.key_in: body): a string of at most the endpoint's
// max_key_length, described as the header parameter is.
func BodyKeyProperty(c *contract.Contract, e contract.Endpoint) Obj {
	return obj(
		"type", "string",
		"minLength", 1,
		"maxLength", c.MaxKeyLengthFor(e),
		"description", keyDescription(c, c.MaxKeyLengthFor(e)),
	)
}

func headerDescription(c *contract.Contract, e contract.Endpoint) string {
	return keyDescription(c, c.MaxKeyLengthFor(e))
}

func keyDescription(c *contract.Contract, max int) string {
	id := c.Idempotency
	var b strings.Builder
	fmt.Fprintf(&b, "A key the client mints once per logical request (at most %d characters) and sends unchanged on every retry of that request.", max)
	if id.HeaderValue == contract.HeaderSFString {
		b.WriteString(` Send it as a quoted structured-field string, e.g. "abc-123" with the quotes.`)
	}
	scope := "per account: two accounts may use the same key independently"
	if id.Scope == contract.ScopeGlobal {
		scope = "across all callers"
	}
	fmt.Fprintf(&b, " The server remembers the first response to a key for %s (%s), %s.", id.ReplayWindow, contract.HumanDuration(id.ReplayWindow.D), scope)
	if id.AfterWindow == contract.AfterWindowError {
		b.WriteString(" A key reused after that window is rejected.")
	} else {
		b.WriteString(" A key reused after that window is a new request and repeats the operation, so finish retrying well within it.")
	}
	if len(id.Derivation) > 0 {
		var ways []string
		for _, d := range id.Derivation {
			w := string(d.Kind)
			if d.Example != "" {
				w += " (" + d.Example + ")"
			}
			ways = append(ways, w)
		}
		fmt.Fprintf(&b, " Derive the key, best first: %s.", strings.Join(ways, "; "))
	}
	b.WriteString(" Never mint a new key for a retry: that turns the retry into a second request. ")
	b.WriteString(id.SameRequest())
	b.WriteString(" ")
	b.WriteString(id.StoredSummary())
	return b.String()
}

// conflictResponse documents the conflicts that share one status: each
// example is the body contract.Reply renders (the bytes the middleware
// sends), in api.error_body's shape or the default one; the schema is the
// spec's own (ref) or one derived from that shape.
func conflictResponse(c *contract.Contract, g conflictGroup, ref string) Obj {
	eb := c.API.ErrorBody
	var desc []string
	examples := Obj{}
	for _, k := range g.kinds {
		what, todo := conflictMeaning(c, k.name)
		label := "status " + strconv.Itoa(k.c.Status) + " without a code"
		if k.c.Code != "" {
			label = "`" + k.c.Code + "`"
		}
		desc = append(desc, fmt.Sprintf("%s: %s %s", label, what, todo))
		examples = append(examples, KV{K: k.label(), V: obj(
			"summary", what,
			"value", bodyValue(c.Reply(k.reply).Body),
		)})
	}
	var enum []any
	for _, code := range g.codes() {
		enum = append(enum, code)
	}
	schema := errorBodySchema(eb, enum, len(enum) == len(g.kinds))
	if ref != "" {
		schema = obj("$ref", ref)
	}
	kind := "Idempotency error. "
	if g.status/100 == 2 {
		kind = "Idempotency: not finished yet. "
	}
	resp := obj("description", kind+strings.Join(desc, " "))
	if h := conflictHeaders(c, g); h != nil {
		resp = append(resp, KV{"headers", h})
	}
	return append(resp, KV{"content", obj(eb.MediaType(), obj("schema", schema, "examples", examples))})
}

// conflictMeaning is what a conflict means and what the integrator does.
func conflictMeaning(c *contract.Contract, kind string) (what, todo string) {
	h := c.Idempotency.Header
	if c.Idempotency.InBody() {
		h = c.Idempotency.KeyMember()
	}
	switch kind {
	case "payload_mismatch":
		return fmt.Sprintf("this %s was already used with a different request.", h),
			"Do not retry: send the original request again, or a new key for a new request."
	case "in_flight":
		todo := "Wait and retry with the same key; the first request's outcome is then replayed."
		switch in := c.Idempotency.InFlight; {
		case in != nil && in.Response == contract.InFlightBlock:
			todo = "The server waited for the first request and it has not finished; retry later with the same key."
		case in != nil && in.Response == contract.InFlightAccepted:
			todo = "Retry with the same key after Retry-After; once the first request is finished, the retry gets its outcome."
		}
		return fmt.Sprintf("a request with this %s is still being processed.", h), todo
	case "invalid_key":
		if c.Idempotency.InBody() {
			return fmt.Sprintf("the %s member of the body is not a string, or is longer than this operation's maxLength.", h), "Send a valid key."
		}
		return fmt.Sprintf("the %s header is longer than %d characters or not in its form.", h, c.Idempotency.MaxKeyLength),
			"Send a valid key."
	case "expired":
		return fmt.Sprintf("this %s was first used longer ago than the %s replay window.", h, c.Idempotency.ReplayWindow.String()),
			"Use a new key for a new request."
	case "too_old":
		return tooOldMeaning(c)
	}
	if c.Idempotency.InBody() {
		return fmt.Sprintf("this operation requires the %s member in its JSON body: the request had none, or %s.", h, c.Idempotency.MissingKeyBodyCase()),
			"Add a key and send the request again."
	}
	return fmt.Sprintf("this operation requires the %s header.", h),
		"Add a key and send the request again."
}

// ReplayHeader declares the header set on replayed responses.
func ReplayHeader(c *contract.Contract) Obj {
	return obj(
		"description", fmt.Sprintf("Set to true when this response is the stored response to an earlier request with the same %s, returned again unchanged.", c.Idempotency.Header),
		"schema", obj("type", "string", "enum", []any{"true"}),
	)
}

// IdempotencyExtension is x-idempotency for one keyed endpoint.
func IdempotencyExtension(c *contract.Contract, e contract.Endpoint) Obj {
	id := c.Idempotency
	x := obj(
		"safe-to-retry", true,
		"header", id.Header,
		"key", e.Key,
		"max-key-length", c.MaxKeyLengthFor(e),
		"window", id.ReplayWindow.String(),
		"window-seconds", int(id.ReplayWindow.D.Seconds()),
		"after-window", id.AfterWindow,
		"scope", id.Scope,
		"fingerprint", id.Fingerprint,
	)
	if id.StoredFailures != "" {
		x = append(x, KV{"stored-failures", id.StoredFailures})
	}
	if id.StoredOutcomes != "" {
		x = append(x, KV{"stored-outcomes", id.StoredOutcomes})
	}
	if id.InBody() {
		// The key is no header here: the extension says where it is.
		x[1] = KV{"key-in", string(contract.KeyInBody)}
		x = append(x[:2], append(Obj{{"key-field", id.KeyFieldPointer()}}, x[2:]...)...)
	}
	x = append(x, KV{"stored-response", id.StoredResponse})
	if in := id.InFlight; in != nil {
		f := Obj{{"response", in.Response}}
		if !in.LockTimeout.IsZero() {
			f = append(f, KV{"lock-timeout", in.LockTimeout.String()})
		}
		if in.Takeover != "" {
			f = append(f, KV{"takeover", in.Takeover})
		}
		x = append(x, KV{"in-flight", f})
	}
	conflicts := Obj{}
	for _, k := range c.AnsweredConflicts() {
		if in := id.InFlight; k.Name == "in_flight" && in != nil && in.Response == contract.InFlightAccepted {
			k.Status = c.Reply(contract.ReplyInFlightAccepted).Status // the 202 the server sends instead
		}
		entry := obj("status", k.Status)
		if k.Code != "" {
			entry = append(entry, KV{"code", k.Code})
		}
		conflicts = append(conflicts, KV{strings.ReplaceAll(k.Name, "_", "-"), entry})
	}
	x = append(x, KV{"conflicts", conflicts})
	if id.ReplayHeader != "" {
		x = append(x, KV{"replay-header", id.ReplayHeader})
	}
	x = append(x, repeatabilityExtension(c)...)
	x = append(x, KV{"effect", e.Effect})
	return x
}

// RetryExtension is x-retry: the contract's whole client retry policy.
func RetryExtension(c *contract.Contract) Obj {
	r := c.Retry
	var statuses []any
	if r.AnyStatus {
		statuses = []any{"any"}
	}
	for _, s := range r.Statuses {
		if s.Class {
			statuses = append(statuses, s.String())
		} else {
			statuses = append(statuses, s.Code)
		}
	}
	cautious := []any{}
	for _, s := range r.CautiousStatuses {
		cautious = append(cautious, s)
	}
	conn := []any{}
	for _, s := range r.ConnectionErrors {
		conn = append(conn, s)
	}
	x := obj(
		"statuses", statuses,
		"cautious-statuses", cautious,
		"connection-errors", conn,
		"honor-retry-after", r.HonorRetryAfter,
		"backoff", obj("jitter", r.Backoff.Jitter, "base", r.Backoff.Base.String(), "cap", r.Backoff.Cap.String(), "multiplier", r.Backoff.Multiplier),
		"max-attempts", r.MaxAttempts,
	)
	if !r.MaxElapsed.IsZero() {
		x = append(x, KV{"max-elapsed", r.MaxElapsed.String()})
	}
	at := r.AttemptTimeout
	if !at.Bare.IsZero() {
		x = append(x, KV{"attempt-timeout", at.Bare.String()})
	} else if !at.P99.IsZero() {
		x = append(x, KV{"attempt-timeout", obj("value", at.Value().String(), "p99", at.P99.String(), "factor", at.Factor)})
	}
	x = append(x, KV{"deadline", r.Deadline}, KV{"propagate-deadline", r.PropagateDeadline}, KV{"log-retries", r.LogRetries})
	if bu := r.Budget; bu != nil {
		x = append(x, KV{"budget", obj("kind", bu.Kind, "capacity", bu.Capacity, "transient-cost", bu.TransientCost,
			"throttle-cost", bu.ThrottleCost, "success-refund", bu.SuccessRefund)})
	}
	if len(r.Stacking) > 0 {
		var st []any
		for _, s := range r.Stacking {
			st = append(st, s)
		}
		x = append(x, KV{"stacking", st})
	}
	return x
}

// SpeakeasyRetries is the same policy in Speakeasy's x-speakeasy-retries
// schema (times in milliseconds). Speakeasy cannot retry a status "at most
// once", so the contract's cautious statuses are left out: an SDK that
// retries a 500 less often than the contract allows is safe, one that
// retries it more often is not.
func SpeakeasyRetries(c *contract.Contract) Obj {
	r := c.Retry
	var codes []any
	if r.AnyStatus {
		codes = []any{"5XX", 429}
	}
	for _, s := range r.Statuses {
		switch {
		case !s.Class:
			if r.Treatment(s.Code) == contract.Retried {
				codes = append(codes, s.Code)
			}
		case len(r.ClassExceptions(s.Code)) == 0:
			codes = append(codes, s.String())
		default:
			// A class with a cautious exception (5XX but 500 at most once,
			// reconciled by contract.Retry.Treatment): list the class's
			// registered codes without the exception, so the SDK retries
			// the exception less often than the contract allows, never more.
			for _, code := range registeredCodes[s.Code] {
				if r.Treatment(code) == contract.Retried {
					codes = append(codes, code)
				}
			}
		}
	}
	backoff := obj(
		"initialInterval", int(r.Backoff.Base.D.Milliseconds()),
		"maxInterval", int(r.Backoff.Cap.D.Milliseconds()),
	)
	if !r.MaxElapsed.IsZero() {
		backoff = append(backoff, KV{"maxElapsedTime", int(r.MaxElapsed.D.Milliseconds())})
	}
	backoff = append(backoff, KV{"exponent", r.Backoff.Multiplier})
	return obj(
		"strategy", "backoff",
		"backoff", backoff,
		"statusCodes", codes,
		"retryConnectionErrors", len(r.ConnectionErrors) > 0,
	)
}

// registeredCodes are the IANA-registered status codes of each class that
// a retry policy can name.
var registeredCodes = map[int][]int{
	4: {408, 425, 429},
	5: {500, 501, 502, 503, 504, 505, 506, 507, 508, 510, 511},
}
