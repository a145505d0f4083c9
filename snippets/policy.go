package snippets

import (
	"fmt"
	"regexp"
	"time"

	"github.com/retryspec/retryspec/contract"
)

// BaseURLEnv names the variable every snippet reads to call another base URL
// than the contract's api.base_url (a staging API, or the fault server in
// tests), so the bytes that are tested are the bytes that are published.
const BaseURLEnv = "RETRYSPEC_BASE_URL"

// Log lines every snippet prints on stderr. The test harness parses them, so
// all templates share these shapes.
const (
	// RetryLogFormat is one line per retry: attempt number, error, next wait.
	RetryLogFormat = "attempt %d failed: %s; retrying in %d ms"
	// GiveUpLogFormat is the last line when the loop stops without success.
	GiveUpLogFormat = "giving up after attempt %d: %s"
)

// RetryLogLine matches a RetryLogFormat line.
var RetryLogLine = regexp.MustCompile(`^attempt (\d+) failed: (.+); retrying in (\d+) ms$`)

// Policy is the contract's client retry policy, flattened into the figures
// and names a template needs. Every string in it is still raw: templates
// escape them with their language's quoting function.
type Policy struct {
	APIName string
	BaseURL string
	// Method and Path of the endpoint the snippet calls; path parameters are
	// filled with the contract's example values (else example_NAME) so the
	// program runs as is.
	Method    string
	Operation string
	Path      string
	// Body is the request the snippet sends: the endpoint's example body
	// (the contract's, else the OpenAPI spec's), else the neutral
	// placeholder, which BodyPlaceholder marks.
	Body            contract.JSONValue
	BodyPlaceholder bool
	// Header is the idempotency header (unused when KeyInBody); SFString
	// quotes its value as an RFC 8941 string (idempotency.header_value:
	// sf-string).
	Header   string
	SFString bool
	// MaxKeyLength is the longest key the endpoint accepts.
	MaxKeyLength int
	// KeyInBody sends the key as the member KeyField of the JSON body's
	// top-level object (idempotency.key_in: body) instead of in Header;
	// Body then holds the example without that member, which the snippet
	// adds once the key is minted.
	KeyInBody bool
	KeyField  string
	// GraphQL sends the endpoint as a GraphQL mutation (idempotency.key_in:
	// graphql): a POST of Body, {"query": the mutation document}, to which
	// the snippet adds "variables": {KeyVariable: the key} once the key is
	// minted. Conflicts then come as error entries in a 200: ErrorBody
	// points at the first entry's code (contract.GraphQL.ErrorBody), and a
	// 200 with an entry at EntryAt (whose list is EntriesMember) is a
	// failure, never retried, unless it is the in-flight conflict.
	GraphQL       bool
	ErrorsIn      contract.GraphQLErrors
	Mutation      string
	KeyVariable   string
	EntryAt       []string
	EntriesMember string
	// FirstSentHeader is the header carrying the first-sent time
	// (idempotency.first_sent.header), "" when the contract measures no
	// window from a client time. A snippet stamps the time once per logical
	// request, before the first attempt, as an IMF-fixdate HTTP date, and
	// sends it unchanged on every attempt, as the key.
	FirstSentHeader string
	// TooOldStatus and TooOldCode are the answer to a request older than
	// the first-sent window (contract.Reply(contract.ReplyTooOld)); never
	// retried, since a retry keeps the original first-sent time and is
	// older still. Zero when FirstSentHeader is "".
	TooOldStatus int
	TooOldCode   string

	// Statuses are retried normally; StatusClasses are classes (5 for 5XX).
	Statuses      []int
	StatusClasses []int
	// Cautious statuses are retried at most once per logical request.
	Cautious []int
	// RetryAfterStatuses honour the server's Retry-After: 429 and 503 when
	// the contract retries them and honor_retry_after is on.
	RetryAfterStatuses []int
	// InFlight is set when the contract answers a request for a key that is
	// still being processed with an answer the client should wait out and
	// can tell apart from the others: the in-flight conflict
	// (in_flight.response: conflict), or the 202 that is not the result
	// (accepted), which InFlightAccepted marks. InFlightStatus and
	// InFlightCode are that answer's, from contract.Reply, the function
	// behind the middleware's bytes; InFlightCode is "" when the API
	// answers it by status only.
	InFlight       bool
	InFlightStatus int
	InFlightCode   string
	// InFlightAccepted: the in-flight answer is a 2xx, so a snippet checks
	// its successes for it and polls with the same key until the stored
	// result arrives, instead of taking "still processing" for the result.
	InFlightAccepted bool
	// ErrorBody is where the API's error bodies carry their code
	// (api.error_body): set, a snippet reads the in-flight code at exactly
	// that place; unset, it looks for the code anywhere in the body.
	ErrorBody contract.ErrorBody
	// Mismatch is the payload-mismatch conflict, never retried.
	MismatchStatus int
	MismatchCode   string

	RetryTimeout bool
	RetryReset   bool
	RetryRefused bool

	Jitter     string // full | decorrelated | equal | none
	Base       time.Duration
	Cap        time.Duration
	Multiplier float64

	MaxAttempts    int
	MaxElapsed     time.Duration
	AttemptTimeout time.Duration
}

// NewPolicy flattens c's retry and idempotency sections. It fails when the
// contract cannot be expressed as a bounded, allowlisted retry loop.
func NewPolicy(c *contract.Contract) (Policy, error) {
	r := c.Retry
	ep, ok := c.FirstRequiredKeyEndpoint()
	if !ok {
		return Policy{}, fmt.Errorf("no endpoint takes an idempotency key: snippets call the first endpoint with `key: required` (add one, or mark one `key: optional`)")
	}
	if r.AnyStatus {
		return Policy{}, fmt.Errorf("retry.statuses is `any`: a snippet retries an explicit allowlist only (list the statuses, e.g. [429, 502, 503, 504])")
	}
	if r.MaxElapsed.IsZero() {
		return Policy{}, fmt.Errorf("retry.max_elapsed is not set: a snippet bounds the whole loop (add e.g. `max_elapsed: 60s`)")
	}
	if r.MaxAttempts < 1 {
		return Policy{}, fmt.Errorf("retry.max_attempts must be at least 1")
	}
	p := Policy{
		APIName:        c.API.Name,
		BaseURL:        c.API.BaseURL,
		Method:         ep.Method,
		Operation:      ep.Operation,
		Path:           ep.ExamplePath(),
		Header:         c.Idempotency.Header,
		SFString:       c.Idempotency.HeaderValue == contract.HeaderSFString,
		MaxKeyLength:   c.MaxKeyLengthFor(ep),
		KeyInBody:      c.Idempotency.InBody(),
		ErrorBody:      c.API.ErrorBody,
		MismatchStatus: c.Idempotency.Conflicts.PayloadMismatch.Status,
		MismatchCode:   c.Idempotency.Conflicts.PayloadMismatch.Code,
		RetryTimeout:   r.RetriesConnectionError("timeout"),
		RetryReset:     r.RetriesConnectionError("reset"),
		RetryRefused:   r.RetriesConnectionError("refused"),
		Jitter:         string(r.Backoff.Jitter),
		Base:           r.Backoff.Base.D,
		Cap:            r.Backoff.Cap.D,
		Multiplier:     r.Backoff.Multiplier,
		MaxAttempts:    r.MaxAttempts,
		MaxElapsed:     r.MaxElapsed.D,
		AttemptTimeout: r.AttemptTimeout.Value().D,
	}
	var stated bool
	p.Body, stated = ep.ExampleBody()
	p.BodyPlaceholder = !stated
	if p.KeyInBody {
		p.KeyField = c.Idempotency.KeyField[0]
		p.Body = c.Idempotency.WithoutKey(p.Body)
	}
	if c.Idempotency.InGraphQL() {
		if err := p.setGraphQL(c.Idempotency.GraphQL, ep.Mutation); err != nil {
			return Policy{}, err
		}
	}
	if p.Header == "" {
		p.Header = "Idempotency-Key"
	}
	if p.Multiplier == 0 {
		p.Multiplier = 2
	}
	if p.Jitter == "" {
		p.Jitter = "full"
	}
	if p.AttemptTimeout <= 0 || p.AttemptTimeout > p.MaxElapsed {
		p.AttemptTimeout = p.MaxElapsed
	}
	// A client error other than 429 fails the same way on every attempt
	// (the payload-mismatch conflict included), so it is never retried even
	// if the contract lists it; `check` reports such a contract
	// (retry/client-error). So does the too-old answer, whatever its
	// status: a retry carries the same first-sent time, older still.
	// Classes and cautious statuses are reconciled by contract.Retry.Plan,
	// the one place the rules and the docs also read: a status listed both
	// ways is cautious, and a cautious code wins over a class that covers
	// it (templates test cautious statuses before a 5XX class).
	if fs := c.Idempotency.FirstSent; fs.Set() && fs.Header != "" {
		p.FirstSentHeader = fs.Header
		rep := c.Reply(contract.ReplyTooOld)
		p.TooOldStatus, p.TooOldCode = rep.Status, rep.Code
	}
	plan := r.Plan()
	for _, s := range plan.Cautious {
		if !clientError(s, false) && s != p.TooOldStatus {
			p.Cautious = append(p.Cautious, s)
		}
	}
	for _, s := range plan.Codes {
		if !clientError(s, false) && s != p.TooOldStatus {
			p.Statuses = append(p.Statuses, s)
		}
	}
	for _, k := range plan.Classes {
		if !clientError(k, true) {
			p.StatusClasses = append(p.StatusClasses, k)
		}
	}
	if r.HonorRetryAfter {
		for _, s := range []int{429, 503} {
			if p.retriesNormally(s) {
				p.RetryAfterStatuses = append(p.RetryAfterStatuses, s)
			}
		}
	}
	p.setInFlight(c)
	return p, nil
}

// setInFlight fills the in-flight answer a snippet waits out, as
// contract.Reply renders it for the middleware, the docs and verify.
// Under conflict the in-flight conflict is waited out only when a client
// can tell it apart (state/ambiguous-in-flight). Under accepted the 202
// is never the result: the repeat with the same key is the poll. A 202
// carrying the in-flight code is that answer and any other 202 is the
// handler's own; with `code: none` the contract marks it by its status
// alone, as verify reads it, so every 202 is polled.
func (p *Policy) setInFlight(c *contract.Contract) {
	in, cs := c.Idempotency.InFlight, c.Idempotency.Conflicts
	if in == nil {
		return
	}
	var rep contract.Reply
	switch in.Response {
	case contract.InFlightConflict:
		if cs.InFlight.Status == 0 || !contract.InFlightDistinct(cs) {
			return
		}
		rep = c.Reply(contract.ReplyInFlight)
	case contract.InFlightAccepted:
		rep = c.Reply(contract.ReplyInFlightAccepted)
		p.InFlightAccepted = true
	default:
		return
	}
	p.InFlight, p.InFlightStatus, p.InFlightCode = true, rep.Status, rep.Code
}

// setGraphQL turns the example body into the mutation's request: the
// document built from it (its members the mutation's arguments), the key
// as a variable, and the error entries' place for the conflicts' codes.
func (p *Policy) setGraphQL(g contract.GraphQL, mutation string) error {
	doc, err := g.Document(mutation, p.Body)
	if err != nil {
		return fmt.Errorf("idempotency.key_in: graphql: %w (write the example body as the mutation's arguments, e.g. {\"input\": {...}})", err)
	}
	p.GraphQL, p.ErrorsIn, p.Mutation, p.KeyVariable = true, g.ErrorsIn, mutation, g.KeyVariable()
	p.Body = contract.GraphQLRequest(doc)
	p.ErrorBody = g.ErrorBody(mutation)
	at := p.ErrorBody.CodeAt
	for i, t := range at {
		if t == "0" {
			p.EntryAt = at[:i+1]
		}
	}
	p.EntriesMember = g.EntriesMember()
	return nil
}

func clientError(code int, class bool) bool {
	if class {
		return code == 4
	}
	return code/100 == 4 && code != 429
}

func (p Policy) retriesNormally(status int) bool {
	for _, s := range p.Statuses {
		if s == status {
			return true
		}
	}
	for _, k := range p.StatusClasses {
		if status/100 == k {
			return true
		}
	}
	return false
}

// Millis is a duration in whole milliseconds, the unit all templates use.
func Millis(d time.Duration) int64 { return d.Milliseconds() }
