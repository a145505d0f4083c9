package contract

import (
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// DefaultDocsOut is docs.out when the contract does not set it: the folder,
// beside the contract, that `docs` writes the site to.
const DefaultDocsOut = "site"

// Defaults. A section the contract omits takes these values; they are the
// sound choices the rules would otherwise demand.
var (
	DefaultStatuses         = []int{429, 502, 503, 504}
	DefaultCautiousStatuses = []int{500}
	DefaultConnErrors       = names(ConnTimeout, ConnReset, ConnRefused)
	DefaultStacking         = names(LayerRetry, LayerCircuitBreaker, LayerRateLimiter, LayerBulkhead)
)

func defaultConflicts() Conflicts {
	return Conflicts{
		PayloadMismatch: Conflict{Status: 409, Code: "invalid_idempotent_request"},
		InFlight:        Conflict{Status: 409, Code: "concurrent_idempotent_requests"},
		MissingKey:      Conflict{Status: 400, Code: "missing_idempotency_key"},
		InvalidKey:      Conflict{Status: 400, Code: "invalid_idempotency_key"},
		Expired:         Conflict{Status: 422, Code: "idempotency_key_expired"},
		TooOld:          defaultTooOld,
	}
}

func defaultBackoff() Backoff {
	return Backoff{Jitter: JitterFull, Base: Duration{D: time.Second, Text: "1s"}, Cap: Duration{D: 30 * time.Second, Text: "30s"}, Multiplier: 2}
}

// defaultBudget is the budget of a contract without a retry section, and
// the values a budget section leaves out.
func defaultBudget() *Budget {
	return &Budget{Kind: BudgetTokenBucket, Capacity: 500, TransientCost: 14, ThrottleCost: 5, SuccessRefund: 1}
}

// DefaultRetry is the policy of a contract without a retry section.
func DefaultRetry() Retry {
	return Retry{
		Statuses:          statusSpecs(DefaultStatuses),
		CautiousStatuses:  append([]int(nil), DefaultCautiousStatuses...),
		ConnectionErrors:  append([]string(nil), DefaultConnErrors...),
		HonorRetryAfter:   true,
		Backoff:           defaultBackoff(),
		MaxAttempts:       3,
		MaxElapsed:        Duration{D: 60 * time.Second, Text: "60s"},
		Deadline:          DeadlineOverall,
		PropagateDeadline: true,
		LogRetries:        true,
		Budget:            defaultBudget(),
		Stacking:          append([]string(nil), DefaultStacking...),
	}
}

func statusSpecs(codes []int) []StatusSpec {
	out := make([]StatusSpec, len(codes))
	for i, c := range codes {
		out[i] = StatusSpec{Code: c}
	}
	return out
}

func (d *decoder) decodeContract(root *yaml.Node, c *Contract) {
	top := d.object(root, "", "retryspec", "api", "idempotency", "endpoints", "retry", "sdk", "docs", "lint", "changes")
	if top == nil {
		return
	}
	if n, ok := top["retryspec"]; ok {
		before := len(d.diags)
		c.Version = d.integer(n, "retryspec", 0, 1<<20)
		if len(d.diags) == before && c.Version != 1 {
			d.errorf(d.resolve(n), "retryspec", "this retryspec reads version 1", "unsupported contract version %d", c.Version)
		}
	} else {
		d.errorf(root, "retryspec", "add `retryspec: 1` as the first line", "missing format version `retryspec: 1`")
	}
	if n, ok := top["api"]; ok {
		d.decodeAPI(n, c)
	} else {
		d.errorf(root, "api", "add an api section with name and base_url", "missing section `api`")
	}
	if n, ok := top["idempotency"]; ok {
		d.decodeIdempotency(n, c)
	} else {
		d.errorf(root, "idempotency", "add an idempotency section; `retryspec init` writes a sound one", "missing section `idempotency`")
	}
	if n, ok := top["endpoints"]; ok {
		d.decodeEndpoints(n, c)
	}
	if n, ok := top["retry"]; ok {
		d.decodeRetry(n, c)
	} else {
		c.Retry = DefaultRetry()
		c.Retry.omitted = true
	}
	applyAttemptTimeoutDefault(&c.Retry)
	if n, ok := top["sdk"]; ok {
		c.SDK = d.decodeSDK(n)
	}
	c.Docs.Out = DefaultDocsOut
	if n, ok := top["docs"]; ok {
		d.decodeDocs(n, c)
	}
	if n, ok := top["lint"]; ok {
		d.decodeLint(n, c)
	}
	if n, ok := top["changes"]; ok {
		d.list(n, "changes", 1000, func(item *yaml.Node, p string) {
			f := d.object(item, p, "field", "because")
			ch := Change{Pos: posOf(d.resolve(item))}
			if v, ok := f["field"]; ok {
				ch.Field = d.text(v, p+".field", 200)
			} else if f != nil {
				d.errorf(d.resolve(item), p+".field", "name the changed field, e.g. idempotency.replay_window", "%s needs field:", p)
			}
			if v, ok := f["because"]; ok {
				ch.Because = d.text(v, p+".because", 500)
			}
			if ch.Because == "" && f != nil {
				d.errorf(d.resolve(item), p+".because", "say why integrators can absorb the change", "%s needs because:", p)
			}
			c.Changes = append(c.Changes, ch)
		})
	}
}

func (d *decoder) decodeAPI(n *yaml.Node, c *Contract) {
	f := d.object(n, "api", "name", "base_url", "error_body")
	if f == nil {
		return
	}
	if v, ok := f["name"]; ok {
		c.API.Name = d.text(v, "api.name", 100)
	} else {
		d.errorf(d.resolve(n), "api.name", "add `name: YourAPI`", "api needs name:")
	}
	if v, ok := f["base_url"]; ok {
		s := d.str(v, "api.base_url")
		if err := validBaseURL(s); err != nil && s != "" {
			d.errorf(d.resolve(v), "api.base_url", "write an absolute http(s) URL with other characters percent-encoded (%20 for a space, %7B for {)", "api.base_url: %v", err)
		} else {
			d.checkBaseURLChars(v, s)
		}
		c.API.BaseURL = strings.TrimSuffix(s, "/")
	} else {
		d.errorf(d.resolve(n), "api.base_url", "add `base_url: https://api.example.com`", "api needs base_url:")
	}
	if v, ok := f["error_body"]; ok {
		d.decodeErrorBody(v, c)
	}
}

func (d *decoder) decodeIdempotency(n *yaml.Node, c *Contract) {
	const p = "idempotency"
	f := d.object(n, p, "header", "header_value", "replay_header", "key_source", "max_key_length", "scope",
		"derivation", "fingerprint", "fingerprint_headers", "fingerprint_fields", "claim", "in_flight", "conflicts", "stored_failures", "stored_outcomes", "stored_response",
		"replay_window", "reaper_after", "longest_retry_chain", "after_window", "recovery", "first_sent", "result_header", "key_in", "key_field", "graphql")
	id := &c.Idempotency
	*id = defaultIdempotency()
	if f == nil {
		return
	}
	if v, ok := f["header"]; ok {
		id.Header = d.headerName(v, p+".header")
	}
	d.decodeKeyIn(f, p, id)
	d.decodeGraphQL(f, p, id)
	if v, ok := f["header_value"]; ok {
		id.HeaderValue = HeaderValue(d.enum(v, p+".header_value", HeaderValues...))
	}
	if v, ok := f["replay_header"]; ok {
		id.ReplayHeader = d.headerName(v, p+".replay_header")
	}
	if v, ok := f["key_source"]; ok {
		id.KeySource = KeySource(d.enum(v, p+".key_source", KeySources...))
	}
	if v, ok := f["max_key_length"]; ok {
		id.MaxKeyLength = d.integer(v, p+".max_key_length", 16, 8192)
	}
	if v, ok := f["scope"]; ok {
		id.Scope = KeyScope(d.enum(v, p+".scope", Scopes...))
	}
	if v, ok := f["derivation"]; ok {
		d.decodeDerivation(v, p+".derivation", id)
	}
	if v, ok := f["fingerprint"]; ok {
		id.Fingerprint = Fingerprint(d.enum(v, p+".fingerprint", Fingerprints...))
	}
	if v, ok := f["fingerprint_headers"]; ok {
		id.FingerprintHeaders = d.stringList(v, p+".fingerprint_headers", 20, validHeader)
	}
	if v, ok := f["fingerprint_fields"]; ok {
		d.decodeFingerprintFields(v, p+".fingerprint_fields", id)
	}
	if v, ok := f["claim"]; ok {
		d.decodeClaim(v, p+".claim", &id.Claim)
	}
	if v, ok := f["in_flight"]; ok {
		id.InFlight = d.decodeInFlight(v, p+".in_flight")
	}
	if v, ok := f["conflicts"]; ok {
		d.decodeConflicts(v, p+".conflicts", &id.Conflicts)
		d.checkGraphQLConflicts(f, p, *id)
	}
	if id.InGraphQL() {
		id.Conflicts.inGraphQL()
	}
	if v, ok := f["stored_failures"]; ok {
		id.StoredFailures = FailurePolicy(d.enum(v, p+".stored_failures", FailurePolicies...))
	}
	if v, ok := f["stored_outcomes"]; ok {
		id.StoredOutcomes = StoredOutcomes(d.enum(v, p+".stored_outcomes", OutcomeSets...))
		d.checkOutcomes(v, p, id)
	}
	if v, ok := f["stored_response"]; ok {
		id.StoredResponse = StoredResponse(d.enum(v, p+".stored_response", StoredResponses...))
	}
	if v, ok := f["replay_window"]; ok {
		id.ReplayWindow = d.duration(v, p+".replay_window")
	}
	if v, ok := f["reaper_after"]; ok {
		id.ReaperAfter = d.duration(v, p+".reaper_after")
	}
	if v, ok := f["longest_retry_chain"]; ok {
		id.LongestRetryChain = d.decodeRetryChain(v, p+".longest_retry_chain")
	}
	if v, ok := f["after_window"]; ok {
		id.AfterWindow = AfterWindow(d.enum(v, p+".after_window", AfterWindows...))
	}
	if v, ok := f["recovery"]; ok {
		d.decodeRecovery(v, p+".recovery", &id.Recovery)
	}
	d.decodeRepeatability(f, p, id)
	if v, ok := f["max_key_length"]; ok && id.InBody() && id.MaxKeyLength > 0 {
		d.checkKeyLength(d.resolve(v), p+".max_key_length", id.MaxKeyLength, *id)
	}
}

// defaultIdempotency is the idempotency section's values before the
// contract's own are decoded over them.
func defaultIdempotency() Idempotency {
	return Idempotency{
		KeyIn: KeyInHeader, Header: "Idempotency-Key", HeaderValue: HeaderPlain, KeySource: KeyFromClient, MaxKeyLength: 255, Scope: ScopeAccount,
		Fingerprint: FingerprintSHA256Body, Claim: Claim{Store: StorePostgres, Mechanism: MechanismUniqueConstraint, SameTransaction: true},
		Conflicts: defaultConflicts(), StoredResponse: StoredVerbatim, ReplayWindow: Duration{D: 24 * time.Hour, Text: "24h"}, AfterWindow: AfterWindowNewRequest,
		Derivation: []Derivation{{Kind: DerivationEventDerived}, {Kind: DerivationRequestScoped}, {Kind: DerivationUUIDReused}},
	}
}

// headerName decodes a header name the key or the replay marker travels in.
func (d *decoder) headerName(v *yaml.Node, path string) string {
	s := d.str(v, path)
	if err := validHeader(s); err != nil {
		d.errorf(d.resolve(v), path, "use a name like Idempotency-Key", "%s: %v", path, err)
		return ""
	}
	if reservedHeader(s) {
		d.errorf(d.resolve(v), path, "use a name of your own, like Idempotency-Key",
			"%s: %q is a header HTTP or the client library reserves (framing, routing, connection or credentials); the key cannot travel in it", path, s)
		return ""
	}
	return s
}

func (d *decoder) decodeDerivation(v *yaml.Node, path string, id *Idempotency) {
	id.Derivation = nil
	d.list(v, path, 10, func(item *yaml.Node, ip string) {
		g := d.object(item, ip, "kind", "example")
		var dv Derivation
		if k, ok := g["kind"]; ok {
			dv.Kind = DerivationKind(d.enum(k, ip+".kind", DerivationKinds...))
		} else if g != nil {
			d.errorf(d.resolve(item), ip+".kind", "add kind: event-derived, request-scoped or uuid-reused", "%s needs kind:", ip)
		}
		if e, ok := g["example"]; ok {
			dv.Example = d.text(e, ip+".example", 200)
		}
		id.Derivation = append(id.Derivation, dv)
	})
	d.requireDerivation(v, path, id)
}

func (d *decoder) decodeClaim(v *yaml.Node, path string, cl *Claim) {
	g := d.object(v, path, "store", "mechanism", "fencing_tokens", "same_transaction", "data_store")
	if x, ok := g["store"]; ok {
		cl.Store = Store(d.enum(x, path+".store", Stores...))
	}
	if x, ok := g["mechanism"]; ok {
		cl.Mechanism = Mechanism(d.enum(x, path+".mechanism", Mechanisms...))
	}
	if x, ok := g["fencing_tokens"]; ok {
		cl.FencingTokens = d.boolean(x, path+".fencing_tokens")
	}
	if x, ok := g["same_transaction"]; ok {
		cl.SameTransaction = d.boolean(x, path+".same_transaction")
	}
	d.decodeDataStore(g, path, cl)
}

func (d *decoder) decodeInFlight(v *yaml.Node, path string) *InFlight {
	g := d.object(v, path, "response", "lock_timeout", "takeover")
	in := &InFlight{Takeover: TakeoverConditionalUpdate, LockTimeout: Duration{D: 2 * time.Minute, Text: "2m"}}
	if x, ok := g["response"]; ok {
		in.Response = InFlightMode(d.enum(x, path+".response", InFlightModes...))
	}
	if x, ok := g["lock_timeout"]; ok {
		in.LockTimeout = d.duration(x, path+".lock_timeout")
	}
	if x, ok := g["takeover"]; ok {
		in.Takeover = Takeover(d.enum(x, path+".takeover", Takeovers...))
	}
	return in
}

func (d *decoder) decodeConflicts(v *yaml.Node, path string, cs *Conflicts) {
	g := d.object(v, path, "payload_mismatch", "in_flight", "missing_key", "invalid_key", "expired", "too_old")
	for _, c := range []struct {
		key string
		dst *Conflict
	}{{"payload_mismatch", &cs.PayloadMismatch}, {"in_flight", &cs.InFlight}, {"missing_key", &cs.MissingKey},
		{"invalid_key", &cs.InvalidKey}, {"expired", &cs.Expired}, {"too_old", &cs.TooOld}} {
		if x, ok := g[c.key]; ok {
			d.decodeConflict(x, path+"."+c.key, c.dst)
		}
	}
}

func (d *decoder) decodeConflict(v *yaml.Node, path string, dst *Conflict) {
	h := d.object(v, path, "status", "code", "message")
	if s, ok := h["status"]; ok {
		dst.Status = d.integer(s, path+".status", 400, 599)
	}
	if s, ok := h["code"]; ok {
		code := d.str(s, path+".code")
		switch err := validErrorCode(code); {
		case code == NoCode:
			// The API answers this conflict by status only: every output
			// then matches and shows the status alone.
			code = ""
		case strings.EqualFold(code, NoCode):
			// Codes keep their case, so None would be a code; a reader
			// cannot tell it from the status-only marker.
			d.errorf(d.resolve(s), path+".code", "write `code: none` (lower case) when the API sends no code", "%s: %q reads as none, but only lower-case none means status only", path+".code", code)
		case err != nil:
			d.errorf(d.resolve(s), path+".code", "write the code the API sends, or `code: none` when it sends none (status only)", "%s: %v", path+".code", err)
		}
		dst.Code = code
	}
	if s, ok := h["message"]; ok {
		dst.Message = d.text(s, path+".message", 300)
	}
}

// NoCode is the value of a conflict's code for an API that answers it by
// status only, with no machine-readable code.
const NoCode = "none"

func (d *decoder) decodeRetryChain(v *yaml.Node, path string) RetryChain {
	var rc RetryChain
	rv := d.resolve(v)
	if rv.Kind == yaml.ScalarNode {
		// A bare duration is accepted; the reason is encouraged but optional.
		rc.Duration = d.duration(v, path)
		return rc
	}
	g := d.object(v, path, "duration", "because")
	if x, ok := g["duration"]; ok {
		rc.Duration = d.duration(x, path+".duration")
	} else if g != nil {
		d.errorf(rv, path+".duration", "add duration: 6h (the longest time a caller may retry one intent)", "%s needs duration:", path)
	}
	if x, ok := g["because"]; ok {
		rc.Because = d.text(x, path+".because", 500)
	}
	return rc
}

func (d *decoder) decodeRecovery(v *yaml.Node, path string, r *Recovery) {
	g := d.object(v, path, "completer", "reaper")
	if x, ok := g["completer"]; ok {
		r.Completer = d.boolean(x, path+".completer")
	}
	if x, ok := g["reaper"]; ok {
		r.Reaper = d.boolean(x, path+".reaper")
	}
}

// MaxEndpoints bounds the endpoints list: the largest public APIs have a
// few thousand operations, and the largest generated ones tens of thousands.
const MaxEndpoints = 50_000

func (d *decoder) decodeEndpoints(n *yaml.Node, c *Contract) {
	items := len(d.resolve(n).Content)
	seen := make(map[string]string, items)
	// Sized once: growing by doubling keeps two copies alive at the peak.
	c.Endpoints = make([]Endpoint, 0, min(items, MaxEndpoints))
	d.list(n, "endpoints", MaxEndpoints, func(item *yaml.Node, p string) {
		f := d.object(item, p, "operation", "effect", "key", "unsafe_to_retry", "external_calls", "recovery_points", "single_transaction", "summary", "max_duration", "reviewed", "example", "max_key_length", "mutation")
		e := Endpoint{Key: KeyNone}
		if f == nil {
			c.Endpoints = append(c.Endpoints, e)
			return
		}
		d.decodeMutation(item, f, p, &e, c.Idempotency, seen)
		if c.Idempotency.InGraphQL() {
			// The mutation stands for the operation (graphql.go).
		} else if v, ok := f["operation"]; ok {
			e.Operation = d.str(v, p+".operation")
			m, path, err := ParseOperation(e.Operation)
			if err != nil {
				d.errorf(d.resolve(v), p+".operation", "", "%s: %v", p+".operation", err)
			} else {
				e.Method, e.Path = m, path
				shape := m + " " + PathShape(path)
				if prev, dup := seen[shape]; dup {
					d.errorf(d.resolve(v), p+".operation", "merge the two entries", "%s: %s is already listed at %s", p+".operation", e.Operation, prev)
				}
				seen[shape] = p
			}
		} else {
			d.errorf(d.resolve(item), p+".operation", `add operation: "POST /v1/things"`, "%s needs operation:", p)
		}
		if v, ok := f["effect"]; ok {
			e.Effect = Effect(d.enum(v, p+".effect", Effects...))
		} else {
			d.errorf(d.resolve(item), p+".effect", "add effect: one of "+strings.Join(Effects, ", "), "%s needs effect:", p)
		}
		if v, ok := f["key"]; ok {
			e.Key = KeyMode(d.enum(v, p+".key", KeyModes...))
		}
		if v, ok := f["unsafe_to_retry"]; ok {
			e.UnsafeToRetry = d.text(v, p+".unsafe_to_retry", 500)
		}
		ident := func(s string) error { return validCode(s) }
		if v, ok := f["external_calls"]; ok {
			e.ExternalCalls = d.stringList(v, p+".external_calls", 50, ident)
		}
		if v, ok := f["recovery_points"]; ok {
			e.RecoveryPoints = d.stringList(v, p+".recovery_points", 100, ident)
		}
		if v, ok := f["single_transaction"]; ok {
			e.SingleTransaction = d.boolean(v, p+".single_transaction")
		}
		if v, ok := f["summary"]; ok {
			e.Summary = d.text(v, p+".summary", 200)
		}
		d.decodeEndpointAnswers(f, p, &e)
		d.decodeEndpointKeyLength(f, p, &e, c.Idempotency)
		if v, ok := f["example"]; ok {
			d.decodeExample(v, p+".example", &e)
			d.checkGraphQLExample(v, p+".example", e, c.Idempotency)
		}
		d.checkEndpointKey(item, f, p, e, c.Idempotency)
		c.Endpoints = append(c.Endpoints, e)
	})
}

// PathShape replaces every {param} with {} so /orders/{id} and
// /orders/{order_id} compare equal. A parameter name holds no brace (OpenAPI
// path templating), so in a spec's /x/{{id} only {id} is a parameter and the
// first brace is a literal character.
func PathShape(path string) string {
	if !strings.Contains(path, "{") {
		return path
	}
	var b strings.Builder
	for _, part := range strings.SplitAfter(path, "}") {
		if i := strings.LastIndexByte(part, '{'); i >= 0 && strings.HasSuffix(part, "}") {
			part = part[:i] + "{}"
		}
		b.WriteString(part)
	}
	return b.String()
}

func (d *decoder) decodeRetry(n *yaml.Node, c *Contract) {
	const p = "retry"
	f := d.object(n, p, "statuses", "cautious_statuses", "connection_errors", "honor_retry_after", "backoff",
		"max_attempts", "max_elapsed", "attempt_timeout", "deadline", "propagate_deadline", "log_retries", "budget", "stacking", "fleet")
	r := &c.Retry
	// A written section starts from DefaultRetry's values, but states its
	// own statuses, bounds, budget and stacking: one it leaves out is absent
	// (the rules ask for it), not defaulted.
	*r = DefaultRetry()
	r.Statuses, r.CautiousStatuses, r.MaxElapsed, r.Budget, r.Stacking = nil, nil, Duration{}, nil, nil
	if f == nil {
		return
	}
	if v, ok := f["statuses"]; ok {
		d.decodeStatuses(v, p+".statuses", r)
	}
	if v, ok := f["cautious_statuses"]; ok {
		d.list(v, p+".cautious_statuses", 100, func(item *yaml.Node, ip string) {
			if s := d.integer(item, ip, 100, 599); s != 0 {
				r.CautiousStatuses = append(r.CautiousStatuses, s)
			}
		})
	}
	if v, ok := f["connection_errors"]; ok {
		r.ConnectionErrors = d.stringList(v, p+".connection_errors", 3, enumValidator(ConnErrors...))
	}
	if v, ok := f["honor_retry_after"]; ok {
		r.HonorRetryAfter = d.boolean(v, p+".honor_retry_after")
	}
	if v, ok := f["backoff"]; ok {
		d.decodeBackoff(v, p+".backoff", &r.Backoff)
	}
	if v, ok := f["max_attempts"]; ok {
		r.MaxAttempts = d.integer(v, p+".max_attempts", 1, 100)
	}
	if v, ok := f["max_elapsed"]; ok {
		r.MaxElapsed = d.duration(v, p+".max_elapsed")
	}
	if v, ok := f["attempt_timeout"]; ok {
		r.AttemptTimeout = d.decodeAttemptTimeout(v, p+".attempt_timeout")
	}
	if v, ok := f["deadline"]; ok {
		r.Deadline = Deadline(d.enum(v, p+".deadline", Deadlines...))
	}
	if v, ok := f["propagate_deadline"]; ok {
		r.PropagateDeadline = d.boolean(v, p+".propagate_deadline")
	}
	if v, ok := f["log_retries"]; ok {
		r.LogRetries = d.boolean(v, p+".log_retries")
	}
	if v, ok := f["budget"]; ok {
		r.Budget = d.decodeBudget(v, p+".budget")
	}
	if v, ok := f["stacking"]; ok {
		r.Stacking = d.stringList(v, p+".stacking", 5, enumValidator(StackingLayers...))
	}
	d.decodeFleet(f, p, r)
}

// decodeStatuses reads retry.statuses: `any` (or `all`), or a list of
// codes and classes without repeats.
func (d *decoder) decodeStatuses(v *yaml.Node, path string, r *Retry) {
	if rv := d.resolve(v); rv.Kind == yaml.ScalarNode && (rv.Value == "any" || rv.Value == "all") {
		r.AnyStatus = true
		return
	}
	seen := map[string]bool{}
	d.list(v, path, 100, func(item *yaml.Node, ip string) {
		s, ok := d.statusSpec(item, ip)
		if !ok {
			return
		}
		if seen[s.String()] {
			d.errorf(d.resolve(item), ip, "remove the repeated entry", "%s: %s is listed twice", ip, s)
			return
		}
		seen[s.String()] = true
		r.Statuses = append(r.Statuses, s)
	})
}

func (d *decoder) decodeBackoff(v *yaml.Node, path string, b *Backoff) {
	g := d.object(v, path, "jitter", "base", "cap", "multiplier", "because")
	if x, ok := g["jitter"]; ok {
		b.Jitter = Jitter(d.enum(x, path+".jitter", Jitters...))
	} else {
		b.jitterUnstated = g != nil
	}
	if x, ok := g["base"]; ok {
		b.Base = d.duration(x, path+".base")
	}
	if x, ok := g["cap"]; ok {
		b.Cap = d.duration(x, path+".cap")
	}
	if x, ok := g["multiplier"]; ok {
		b.Multiplier = d.number(x, path+".multiplier", 1, 10)
	}
	if x, ok := g["because"]; ok {
		b.Because = d.text(x, path+".because", 500)
	}
	if b.Jitter == JitterDecorrelated && b.Because == "" && g != nil {
		d.errorf(d.resolve(v), path+".because", "add because: naming the tight user-facing deadline that needs it, or use jitter: full",
			"decorrelated jitter needs a reason under backoff (because:)")
	}
	if !b.Cap.IsZero() && !b.Base.IsZero() && b.Cap.D < b.Base.D {
		d.errorf(d.resolve(g["cap"]), path+".cap", "raise cap to at least base", "%s.cap %s is smaller than base %s", path, b.Cap, b.Base)
	}
}

// decodeAttemptTimeout reads a bare duration or p99 x factor.
func (d *decoder) decodeAttemptTimeout(v *yaml.Node, path string) AttemptTimeout {
	var at AttemptTimeout
	rv := d.resolve(v)
	if rv.Kind == yaml.ScalarNode {
		at.Bare = d.duration(v, path)
		return at
	}
	g := d.object(v, path, "p99", "factor")
	if x, ok := g["p99"]; ok {
		at.P99 = d.duration(x, path+".p99")
	} else if g != nil {
		d.errorf(rv, path+".p99", "add p99: your measured p99 latency under normal load", "%s needs p99:", path)
	}
	at.Factor = 2.5
	if x, ok := g["factor"]; ok {
		at.Factor = d.number(x, path+".factor", 1, 100)
	}
	return at
}

func (d *decoder) decodeBudget(v *yaml.Node, path string) *Budget {
	g := d.object(v, path, "kind", "capacity", "transient_cost", "throttle_cost", "success_refund")
	b := defaultBudget()
	if x, ok := g["kind"]; ok {
		b.Kind = BudgetKind(d.enum(x, path+".kind", BudgetKinds...))
	}
	if x, ok := g["capacity"]; ok {
		b.Capacity = d.integer(x, path+".capacity", 1, 1_000_000)
	}
	if x, ok := g["transient_cost"]; ok {
		b.TransientCost = d.integer(x, path+".transient_cost", 0, 1_000_000)
	}
	if x, ok := g["throttle_cost"]; ok {
		b.ThrottleCost = d.integer(x, path+".throttle_cost", 0, 1_000_000)
	}
	if x, ok := g["success_refund"]; ok {
		b.SuccessRefund = d.integer(x, path+".success_refund", 0, 1_000_000)
	}
	return b
}

func (d *decoder) statusSpec(n *yaml.Node, path string) (StatusSpec, bool) {
	n, ok := d.scalar(n, path, "a status code like 503 or a class like 5XX")
	if !ok {
		return StatusSpec{}, false
	}
	v := strings.ToUpper(n.Value)
	if len(v) == 3 && strings.HasSuffix(v, "XX") && v[0] >= '1' && v[0] <= '5' {
		return StatusSpec{Code: int(v[0] - '0'), Class: true}, true
	}
	code, err := strconv.Atoi(v)
	if err != nil || code < 100 || code > 599 {
		d.errorf(n, path, "use a status code from 100 to 599, or a class like 5XX", "%s: %q is not a status code", path, n.Value)
		return StatusSpec{}, false
	}
	return StatusSpec{Code: code}, true
}

func (d *decoder) decodeSDK(n *yaml.Node) *SDK {
	const p = "sdk"
	f := d.object(n, p, "languages", "retries", "auto_idempotency_key")
	s := &SDK{Languages: append([]string(nil), DefaultLanguages...), Retries: On, AutoIdempotencyKey: true}
	if v, ok := f["languages"]; ok {
		s.Languages = d.stringList(v, p+".languages", len(Languages), enumValidator(Languages...))
	}
	if v, ok := f["retries"]; ok {
		s.Retries = OnOff(d.onOff(v, p+".retries"))
	}
	if v, ok := f["auto_idempotency_key"]; ok {
		s.AutoIdempotencyKey = d.boolean(v, p+".auto_idempotency_key")
	}
	return s
}

func (d *decoder) decodeDocs(n *yaml.Node, c *Contract) {
	f := d.object(n, "docs", "out", "copy")
	if v, ok := f["out"]; ok {
		c.Docs.Out = d.text(v, "docs.out", 300)
		if err := validLocalPath(c.Docs.Out); c.Docs.Out != "" && err != nil {
			d.errorf(d.resolve(v), "docs.out", "name a folder beside the contract, like site or docs/site; pass --out to write elsewhere", "docs.out: %v", err)
			c.Docs.Out = ""
		}
		if c.Docs.Out == "" {
			c.Docs.Out = DefaultDocsOut
		}
	}
	v, ok := f["copy"]
	if !ok {
		return
	}
	const p = "docs.copy"
	g := d.object(v, p, "include", "allow", "lint_code")
	if x, ok := g["include"]; ok {
		c.Docs.Copy.Include = d.stringList(x, p+".include", 200, func(s string) error {
			if err := validText(s, 300); err != nil {
				return err
			}
			return validLocalPath(s)
		})
	}
	if x, ok := g["lint_code"]; ok {
		c.Docs.Copy.LintCode = d.boolean(x, p+".lint_code")
	}
	if x, ok := g["allow"]; ok {
		d.list(x, p+".allow", 500, func(item *yaml.Node, ip string) {
			h := d.object(item, ip, "path", "rule", "because")
			a := CopyAllow{Pos: posOf(d.resolve(item))}
			if y, ok := h["path"]; ok {
				a.Path = d.text(y, ip+".path", 300)
			}
			if y, ok := h["rule"]; ok {
				a.Rule = d.text(y, ip+".rule", 100)
			}
			if y, ok := h["because"]; ok {
				a.Because = d.text(y, ip+".because", 500)
			}
			if h != nil {
				for _, req := range []struct{ key, val string }{{"path", a.Path}, {"rule", a.Rule}, {"because", a.Because}} {
					if req.val == "" {
						d.errorf(d.resolve(item), ip+"."+req.key, "an allow entry needs path, rule and because", "%s needs %s:", ip, req.key)
					}
				}
			}
			c.Docs.Copy.Allow = append(c.Docs.Copy.Allow, a)
		})
	}
}

func (d *decoder) decodeLint(n *yaml.Node, c *Contract) {
	f := d.object(n, "lint", "waive")
	v, ok := f["waive"]
	if !ok {
		return
	}
	d.list(v, "lint.waive", 500, func(item *yaml.Node, ip string) {
		g := d.object(item, ip, "rule", "path", "because")
		w := Waiver{Pos: posOf(d.resolve(item))}
		if x, ok := g["rule"]; ok {
			w.Rule = d.text(x, ip+".rule", 100)
		} else if g != nil {
			d.errorf(d.resolve(item), ip+".rule", "name the rule ID, e.g. rule: retry/no-budget", "%s needs rule:", ip)
		}
		if x, ok := g["path"]; ok {
			w.Path = d.text(x, ip+".path", 200)
		}
		if x, ok := g["because"]; ok {
			w.Because = d.text(x, ip+".because", 500)
		}
		if w.Because == "" && g != nil {
			d.errorf(d.resolve(item), ip+".because", "add because: with the reason the rule does not apply", "a waiver needs a reason: %s has no because:", ip)
		}
		c.Lint.Waive = append(c.Lint.Waive, w)
	})
}

// StatusList renders a status list for messages: "429, 502, 503, 504".
func StatusList(specs []StatusSpec) string {
	parts := make([]string, len(specs))
	for i, s := range specs {
		parts[i] = s.String()
	}
	return strings.Join(parts, ", ")
}
