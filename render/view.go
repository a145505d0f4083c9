package render

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/render/schedule"
)

func newView(in Inputs, libraryMarks []string) *view {
	c := in.Contract
	r := c.Retry
	id := c.Idempotency
	v := &view{
		C:               c,
		Rules:           in.Rules,
		Steps:           schedule.Compute(r),
		RetryAfter:      r.HonorRetryAfter && r.RetriesStatus(429),
		InFlightRetry:   id.InFlight != nil && id.InFlight.Response == contract.InFlightConflict,
		AttemptTimeout:  r.AttemptTimeout.Value(),
		OverallDeadline: r.Deadline == contract.DeadlineOverall,
		Stacking:        strings.Join(r.Stacking, " → "),
		ScheduleImage:   ScheduleImage,
		ElapsedImage:    ElapsedImage,
		StatesImage:     StatesImage,
		Changelog:       in.Changelog,
		NoSnippets:      in.NoSnippets,
	}
	if !r.AttemptTimeout.Bare.IsZero() {
		v.AttemptTimeout = r.AttemptTimeout.Bare
	}
	for i, s := range in.Snippets {
		sv := snippetView{Snippet: s, FenceTag: FenceTag(s.Lang), Lines: bytes.Count(s.Code, []byte("\n")), LibraryLine: oneLine(s.Library), LibraryMark: libraryMarks[i]}
		v.RetryingQuoted = v.RetryingQuoted || sv.LibraryMark != ""
		v.Snippets = append(v.Snippets, sv)
	}
	v.Statuses, v.CautiousCodes = statusRows(r)
	v.ConnErrors = connRows(r)
	// Sized up front: a row holds the whole endpoint, and growing the
	// slices row by row cost 60 ms on 20,000 endpoints.
	v.Endpoints = make([]endpointRow, 0, len(c.Endpoints))
	changing := make([]endpointRow, 0, len(c.Endpoints)) // the state-changing rows, in contract order
	for _, e := range c.Endpoints {
		row := endpointRow{Endpoint: e}
		if (e.Method == "PUT" || e.Method == "DELETE") && !e.NaturallyIdempotent() {
			row.MethodNotIdempotent = true
			v.MethodTrusted = true
		}
		switch {
		case e.Key == contract.KeyOptional && e.NaturallyIdempotent():
			row.Note = "yes: repeating it leaves the same state; a key is optional"
		case e.Key == contract.KeyOptional:
			row.Note = "only with a key: the key is optional, and without one a retry repeats the effect"
		case e.Keyed():
			row.Note = "yes, with the same key"
		case e.NaturallyIdempotent():
			row.Note = "yes: repeating it leaves the same state"
		case e.UnsafeToRetry != "":
			row.Note = "no: " + e.UnsafeToRetry
		default:
			row.Note = "no: repeating it repeats the effect"
		}
		v.Endpoints = append(v.Endpoints, row)
		if isRead(e) {
			// Reads change nothing and take no key: a client retries them
			// freely, so on a large API they would only bury the rows
			// that need a decision.
			v.Reads++
			if e.Method == contract.MethodQuery {
				v.Queries = append(v.Queries, e.Operation)
			}
		} else {
			changing = append(changing, row)
		}
		if !e.Keyed() && !e.NaturallyIdempotent() {
			v.Unkeyed = append(v.Unkeyed, e)
		}
	}
	v.EndpointGroups = groupEndpoints(changing)
	for _, d := range id.Derivation {
		v.Derivations = append(v.Derivations, derivationRow{Title: derivationTitle(d.Kind), Explain: derivationExplain(d.Kind), Example: d.Example})
	}
	v.JitterFormula, v.JitterSentence = jitterText(r.Backoff)
	v.Choices = newRetryChoices(c)
	eb := c.API.ErrorBody
	v.CodeAt = contract.Pointer(eb.CodeAt)
	// The bodies the middleware sends for this contract, from the one
	// function that renders them.
	v.MismatchBody = c.Reply(contract.ReplyPayloadMismatch).Indented()
	v.InFlightBody = c.Reply(contract.ReplyInFlight).Indented()
	if id.InFlight != nil && id.InFlight.Response == contract.InFlightAccepted {
		rep := c.Reply(contract.ReplyInFlightAccepted)
		v.InFlightPoll, v.AcceptedAnswer, v.AcceptedBody = true, contract.Conflict{Status: rep.Status, Code: rep.Code}, rep.Indented()
	}
	v.ExampleRequest = exampleRequest(c)
	v.Repeat = newRepeatView(c)
	v.GraphQL = newGraphQLView(c)
	v.ErrorMediaType = eb.MediaType()
	v.StoredRows = storedRows(c.Idempotency)
	if c.SDK != nil {
		for _, l := range c.SDK.Languages {
			v.SDKRows = append(v.SDKRows, languageRow{Title: LanguageTitle(l)})
		}
	}
	return v
}

func statusRows(r contract.Retry) ([]failureRow, string) {
	var rows []failureRow
	if r.AnyStatus {
		rows = append(rows, failureRow{"any status", "yes", "This contract retries every error status; see its rule findings."})
		return rows, ""
	}
	for _, s := range r.Statuses {
		why := statusWhy(s)
		if s.Class {
			// contract.Retry reconciles a class with cautious statuses, for
			// the rules and snippets too: say which codes it leaves out.
			if ex := r.ClassExceptions(s.Code); len(ex) > 0 {
				why += fmt.Sprintf(" Except %s, retried at most once (below).", joinInts(ex))
			}
		} else if r.Treatment(s.Code) == contract.RetriedOnce {
			continue // listed both ways: the cautious row below says how
		}
		rows = append(rows, failureRow{s.String() + statusName(s), "yes", why})
	}
	var cautious []string
	for _, c := range r.CautiousStatuses {
		rows = append(rows, failureRow{fmt.Sprintf("%d%s", c, statusName(contract.StatusSpec{Code: c})), "once at most", "Often transient, but sometimes a bug that fails the same way on every attempt."})
		cautious = append(cautious, fmt.Sprint(c))
	}
	return rows, strings.Join(cautious, ", ")
}

func statusName(s contract.StatusSpec) string {
	if s.Class {
		return " (any server error)"
	}
	names := map[int]string{429: "Too Many Requests", 500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout", 408: "Request Timeout"}
	if n, ok := names[s.Code]; ok {
		return " " + n
	}
	return ""
}

func statusWhy(s contract.StatusSpec) string {
	switch {
	case s.Class:
		return "Server errors in this class are treated as transient."
	case s.Code == 429:
		return "The API is shedding load; slow down and try again."
	case s.Code >= 500:
		return "A gateway or the service was briefly unavailable; the request likely never ran."
	}
	return "Listed as transient by this contract."
}

func connRows(r contract.Retry) []failureRow {
	all := []struct{ kind, label, why string }{
		{"timeout", "connection or read timeout", "No answer in time. Safe to retry when the endpoint takes a key or is idempotent by nature (see below)."},
		{"reset", "connection reset", "The connection broke; the request may or may not have run."},
		{"refused", "connection refused", "Nothing accepted the connection; the request never ran."},
	}
	var rows []failureRow
	for _, a := range all {
		if r.RetriesConnectionError(a.kind) {
			rows = append(rows, failureRow{a.label, "yes", a.why})
		} else {
			rows = append(rows, failureRow{a.label, "no", "Not retried under this contract."})
		}
	}
	return rows
}

func derivationTitle(kind contract.DerivationKind) string {
	switch kind {
	case contract.DerivationEventDerived:
		return "Derived from the event"
	case contract.DerivationRequestScoped:
		return "Scoped to the request"
	case contract.DerivationUUIDReused:
		return "A random UUID, reused"
	}
	return string(kind)
}

func derivationExplain(kind contract.DerivationKind) string {
	switch kind {
	case contract.DerivationEventDerived:
		return "build the key from an identifier your system already holds for this operation, such as your own order or transfer ID. A retry cannot miss the key, because it is computed the same way every time."
	case contract.DerivationRequestScoped:
		return "combine the user and an ID you store for this one request, when no business identifier exists yet."
	case contract.DerivationUUIDReused:
		return "generate a UUID once, store it with the pending operation, and send it on every attempt. Suits scripts without their own identifiers."
	case contract.DerivationUUIDPerAttempt, contract.DerivationTimestamp:
		return "a new value on every attempt. Do not use this: each retry then looks like a new request."
	}
	return ""
}

// jitterText is the formula of the contract's jitter strategy and one
// sentence on what it does.
func jitterText(b contract.Backoff) (formula, sentence string) {
	m := formatNumber(b.Multiplier)
	env := fmt.Sprintf("min(cap, base * %s^n)", m)
	switch b.Jitter {
	case contract.JitterFull:
		return "sleep = random(0, " + env + ")",
			"This is full jitter: the wait before retry n (counting from 0) is drawn uniformly between zero and the envelope. Of the common strategies it spends the least total client work and puts the least load on the API."
	case contract.JitterDecorrelated:
		s := "This is decorrelated jitter: each wait is drawn between the base and three times the previous wait, capped. It finishes a little sooner than full jitter at the cost of more total work."
		if b.Because != "" {
			s += " This API chose it because: " + b.Because
		}
		return "sleep = min(cap, random(base, previous_sleep * 3))", s
	case contract.JitterEqual:
		return "sleep = " + env + " / 2 + random(0, " + env + " / 2)",
			"This is equal jitter: half the envelope is a fixed wait and the other half is random."
	}
	return "sleep = " + env, "This schedule has no jitter: every client waits exactly the envelope."
}

// LanguageTitle is the display name of a snippet language.
func LanguageTitle(lang string) string {
	if l, ok := contract.LanguageNamed(lang); ok {
		return l.Title
	}
	return lang
}

// FenceTag is the code fence language of a snippet language, as docs
// platforms and chroma name it.
func FenceTag(lang string) string {
	if l, ok := contract.LanguageNamed(lang); ok {
		lang = l.FenceTag
	}
	return safeFenceTag(lang)
}

// isRead reports whether an endpoint only reads: a safe method, or an
// effect stated as read.
func isRead(e contract.Endpoint) bool {
	switch e.Method {
	case "GET", "HEAD", "OPTIONS":
		return true
	}
	return e.Effect == contract.EffectRead
}

// endpointGroupOf is the section an endpoint is listed under on the
// Idempotent requests page: its path's resource prefix, /v1/transfers for
// /v1/transfers/{id}/reverse (a leading version segment is kept with the
// resource after it), /domains for /domains/claim. The contract has no
// tags, so the path is what groups operations as the API's reference does.
func endpointGroupOf(path string) string {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	n := 1
	if len(segs) > 1 && isVersionSegment(segs[0]) {
		n = 2
	}
	if len(segs) < n || strings.HasPrefix(segs[n-1], "{") {
		n = len(segs)
		for n > 0 && strings.HasPrefix(segs[n-1], "{") {
			n--
		}
	}
	return "/" + strings.Join(segs[:n], "/")
}

// isVersionSegment matches v1, v2, v1beta, 2024-01-01 style segments.
func isVersionSegment(s string) bool {
	if len(s) >= 2 && s[0] == 'v' && s[1] >= '0' && s[1] <= '9' {
		return true
	}
	return len(s) == 10 && s[4] == '-' && s[7] == '-'
}

// maxEndpointGroups is the most sections the endpoints table is split
// into. Past it (an API whose every path is its own resource) headings
// would outnumber the rows they help find, and each one is a line in the
// contents list and the search index: the table stays one.
const maxEndpointGroups = 40

// groupEndpoints splits rows by endpointGroupOf, the groups in the order
// of their first endpoint in the contract; one group when splitting would
// not help a reader (a single prefix, or more than maxEndpointGroups).
func groupEndpoints(rows []endpointRow) []endpointGroup {
	var gs []endpointGroup
	index := map[string]int{}
	for _, row := range rows {
		title := endpointGroupOf(row.Path)
		i, ok := index[title]
		if !ok {
			if len(gs) == maxEndpointGroups {
				return []endpointGroup{{Rows: rows}}
			}
			i = len(gs)
			index[title] = i
			gs = append(gs, endpointGroup{Title: title})
		}
		gs[i].Rows = append(gs[i].Rows, row)
	}
	return gs
}

// storedRow is one row of "what a retry with the same key returns".
type storedRow struct {
	Answer, Retry string
}

// storedRows words contract.Idempotency.StoredClasses, the answers
// the middleware's store decision (Stores) gives, class by class.
func storedRows(id contract.Idempotency) []storedRow {
	var out []storedRow
	for _, sc := range id.StoredClasses() {
		row := storedRow{Answer: sc.Class, Retry: "runs the request again"}
		switch {
		case sc.Class == "":
			row.Answer = contract.JoinStatuses(contract.NotCarriedOut, "or")
			row.Retry = "runs the request again: these answers say it was not carried out, so they are never stored"
		case len(sc.Except) > 0:
			row.Answer += " other than " + contract.JoinStatuses(sc.Except, "and")
		}
		if sc.Stored {
			row.Retry = "gets the stored answer: the same status and body, byte for byte"
		}
		out = append(out, row)
	}
	return out
}
