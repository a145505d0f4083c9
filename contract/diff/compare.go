package diff

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/retryspec/retryspec/contract"
)

// wholeContract is the row for a contract that appears (first commit) or
// disappears between two revisions.
const wholeContract = "(contract)"

// Compare returns the changes from old to new, worst class first and in
// contract order within a class. A nil old means the contract is new:
// one change for the contract and one per endpoint. Acknowledgements that
// the new contract adds to `changes:` are applied (see Acknowledge).
func Compare(old, new *contract.Contract) []Change {
	var out []Change
	switch {
	case old == nil && new == nil:
		return nil
	case old == nil:
		out = append(out, wholeChange(Added, "", "version "+strconv.Itoa(new.Version)))
		for i, e := range new.Endpoints {
			out = append(out, endpointPresence(Added, fmt.Sprintf("endpoints[%d]", i), "", e.Operation, e.Operation, new.PosOf(fmt.Sprintf("endpoints[%d]", i))))
		}
	case new == nil:
		out = append(out, wholeChange(Removed, "version "+strconv.Itoa(old.Version), ""))
	default:
		oh, ot := contractFacts(old)
		nh, nt := contractFacts(new)
		out = append(out, compareFacts(oh, nh, new)...)
		out = append(out, compareEndpoints(old, new)...)
		out = append(out, compareFacts(ot, nt, new)...)
	}
	if new != nil {
		Acknowledge(out, old, new)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Class > out[j].Class })
	return out
}

func wholeChange(dir Direction, oldV, newV string) Change {
	r, _ := rowByField(wholeContract)
	o, _, _ := r.outcome(dir, newV)
	return Change{Field: "", Row: wholeContract, Class: o.Class, Direction: dir, rule: string(dir), Old: oldV, New: newV, Why: o.Why, Migration: o.Migration, Pos: contract.Pos{Line: 1, Column: 1}}
}

func endpointPresence(dir Direction, field, oldV, newV, op string, pos contract.Pos) Change {
	r, _ := rowByField("endpoints[]")
	o, _, _ := r.outcome(dir, newV)
	c := Change{Field: field, Row: r.Field, Class: o.Class, Direction: dir, rule: string(dir), Old: oldV, New: newV, Endpoint: op, Pos: pos}
	c.Why, c.Migration = expand(o.Why, oldV, newV, ""), expand(o.Migration, oldV, newV, "")
	c.whyTmpl, c.migrationTmpl = o.Why, o.Migration
	return c
}

// fact is one comparable value of a contract, flattened from the model.
type fact struct {
	path string // contract path, with real list indexes
	row  string // Table row
	kind Kind
	text string   // the value as written; "" when absent
	num  float64  // ordering for Number, Span and Flag
	list []string // elements of a Set or Sequence
	// covered reports whether a Set's element is still included by a list
	// (a 5XX class covers 502); nil means plain membership.
	covered func(elem string, list []string) bool
}

type facts struct {
	order []string
	by    map[string]fact
}

func (fs *facts) add(f fact) {
	if fs.by == nil {
		fs.by = map[string]fact{}
	}
	fs.order = append(fs.order, f.path)
	fs.by[f.path] = f
}

func (fs *facts) text(path string, kind Kind, v string) {
	fs.add(fact{path: path, row: rowOf(path), kind: kind, text: v})
}

func (fs *facts) number(path string, v float64) {
	fs.add(fact{path: path, row: rowOf(path), kind: Number, text: strconv.FormatFloat(v, 'g', -1, 64), num: v})
}

func (fs *facts) span(path string, d contract.Duration) {
	f := fact{path: path, row: rowOf(path), kind: Span, num: float64(d.D)}
	if !d.IsZero() {
		f.text = d.String()
	}
	fs.add(f)
}

func (fs *facts) flag(path string, v bool) {
	f := fact{path: path, row: rowOf(path), kind: Flag, text: strconv.FormatBool(v)}
	if v {
		f.num = 1
	}
	fs.add(f)
}

func (fs *facts) elems(path string, kind Kind, list []string) {
	fs.add(fact{path: path, row: rowOf(path), kind: kind, text: strings.Join(list, ", "), list: list})
}

func (fs *facts) presence(path string, present bool) {
	v := ""
	if present {
		v = "present"
	}
	fs.add(fact{path: path, row: rowOf(path), kind: Presence, text: v})
}

// rowOf maps a contract path to its Table row: list indexes become [].
// A path with no index is its own row, without a copy.
func rowOf(path string) string {
	if strings.IndexByte(path, '[') < 0 {
		return path
	}
	if rest, ok := strings.CutPrefix(path, "endpoints["); ok {
		// endpoints[N].field: the common case, one concatenation.
		if j := strings.IndexByte(rest, ']'); j >= 0 && strings.IndexByte(rest[j+1:], '[') < 0 {
			return "endpoints[]" + rest[j+1:]
		}
	}
	var b strings.Builder
	for i := 0; i < len(path); i++ {
		if path[i] == '[' {
			if j := strings.IndexByte(path[i:], ']'); j > 0 {
				b.WriteString("[]")
				i += j
				continue
			}
		}
		b.WriteByte(path[i])
	}
	return b.String()
}

// contractFacts flattens everything but the endpoints: head is what comes
// before endpoints in the file, tail what comes after. Every field of the
// model must appear here or in endpointFacts (TestEveryModelFieldIsCompared).
func contractFacts(c *contract.Contract) (head, tail *facts) {
	h, t := &facts{}, &facts{}
	h.text("retryspec", Enum, strconv.Itoa(c.Version))
	h.text("api.name", Text, c.API.Name)
	h.text("api.base_url", Text, c.API.BaseURL)
	h.text("api.error_body.code_at", Text, contract.Pointer(c.API.ErrorBody.CodeAt))
	h.text("api.error_body.message_at", Text, contract.Pointer(c.API.ErrorBody.MessageAt))
	h.text("api.error_body.schema_ref", Text, c.API.ErrorBody.SchemaRef)
	h.text("api.error_body.format", Enum, problemFormat(c.API.ErrorBody))

	id := c.Idempotency
	const p = "idempotency."
	h.text(p+"key_in", Enum, string(id.KeyIn))
	h.text(p+"key_field", Text, id.KeyFieldPointer())
	h.text(p+"graphql.path", Text, id.GraphQL.Path)
	h.text(p+"graphql.directive", Text, id.GraphQL.Directive)
	h.text(p+"graphql.argument", Text, id.GraphQL.Argument)
	h.text(p+"graphql.errors_in", Enum, string(id.GraphQL.ErrorsIn))
	h.text(p+"header", Text, id.Header)
	h.text(p+"header_value", Enum, string(id.HeaderValue))
	h.text(p+"replay_header", Text, id.ReplayHeader)
	h.text(p+"key_source", Enum, string(id.KeySource))
	h.number(p+"max_key_length", float64(id.MaxKeyLength))
	h.text(p+"scope", Enum, string(id.Scope))
	var der []string
	for _, d := range id.Derivation {
		s := string(d.Kind)
		if d.Example != "" {
			s += " (" + d.Example + ")"
		}
		der = append(der, s)
	}
	h.elems(p+"derivation", Sequence, der)
	h.text(p+"fingerprint", Enum, string(id.Fingerprint))
	h.elems(p+"fingerprint_headers", Sequence, id.FingerprintHeaders)
	h.elems(p+"fingerprint_fields.members", Sequence, id.FingerprintFields.Members)
	h.flag(p+"fingerprint_fields.only", id.FingerprintFields.Only)
	h.text(p+"claim.store", Enum, string(id.Claim.Store))
	h.text(p+"claim.mechanism", Enum, string(id.Claim.Mechanism))
	h.flag(p+"claim.fencing_tokens", id.Claim.FencingTokens)
	h.flag(p+"claim.same_transaction", id.Claim.SameTransaction)
	h.text(p+"claim.data_store", Enum, string(id.Claim.DataStore))
	h.presence(p+"in_flight", id.InFlight != nil)
	if in := id.InFlight; in != nil {
		h.text(p+"in_flight.response", Enum, string(in.Response))
		h.span(p+"in_flight.lock_timeout", in.LockTimeout)
		h.text(p+"in_flight.takeover", Enum, string(in.Takeover))
	}
	for _, cf := range id.Conflicts.All() {
		if cf.Status == 0 {
			// too_old in a contract without a first-sent window: absent.
			h.text(p+"conflicts."+cf.Name+".status", Enum, "")
			h.text(p+"conflicts."+cf.Name+".code", Text, "")
			h.text(p+"conflicts."+cf.Name+".message", Text, "")
			continue
		}
		code := cf.Code
		if code == "" {
			code = contract.NoCode
		}
		h.text(p+"conflicts."+cf.Name+".status", Enum, strconv.Itoa(cf.Status))
		h.text(p+"conflicts."+cf.Name+".code", Text, code)
		h.text(p+"conflicts."+cf.Name+".message", Text, cf.Message)
	}
	h.text(p+"stored_failures", Enum, string(id.StoredFailures))
	// What is stored, as it follows from both fields: writing down the
	// set stored_failures already implied changes nothing.
	h.text(p+"stored_outcomes", Enum, string(id.Outcomes()))
	h.text(p+"stored_response", Enum, string(id.StoredResponse))
	h.span(p+"replay_window", id.ReplayWindow)
	h.span(p+"reaper_after", id.ReaperAfter)
	h.span(p+"longest_retry_chain.duration", id.LongestRetryChain.Duration)
	h.text(p+"longest_retry_chain.because", Text, id.LongestRetryChain.Because)
	h.text(p+"after_window", Enum, string(id.AfterWindow))
	h.flag(p+"recovery.completer", id.Recovery.Completer)
	h.flag(p+"recovery.reaper", id.Recovery.Reaper)
	h.text(p+"first_sent.header", Text, id.FirstSent.Header)
	h.span(p+"first_sent.window", id.FirstSent.Window)
	h.text(p+"result_header.name", Text, id.ResultHeader.Name)
	h.text(p+"result_header.accepted", Text, id.ResultHeader.Accepted)
	h.text(p+"result_header.rejected", Text, id.ResultHeader.Rejected)

	r := c.Retry
	const q = "retry."
	var statuses []string
	if r.AnyStatus {
		statuses = append(statuses, "any")
	}
	for _, s := range r.Statuses {
		statuses = append(statuses, s.String())
	}
	t.elems(q+"statuses", Set, statuses)
	t.by[q+"statuses"] = withCover(t.by[q+"statuses"], statusCovered)
	var cautious []string
	for _, s := range r.CautiousStatuses {
		cautious = append(cautious, strconv.Itoa(s))
	}
	t.elems(q+"cautious_statuses", Set, cautious)
	t.elems(q+"connection_errors", Set, r.ConnectionErrors)
	t.flag(q+"honor_retry_after", r.HonorRetryAfter)
	t.text(q+"backoff.jitter", Enum, string(r.Backoff.Jitter))
	t.span(q+"backoff.base", r.Backoff.Base)
	t.span(q+"backoff.cap", r.Backoff.Cap)
	t.number(q+"backoff.multiplier", r.Backoff.Multiplier)
	t.text(q+"backoff.because", Text, r.Backoff.Because)
	t.number(q+"max_attempts", float64(r.MaxAttempts))
	t.span(q+"max_elapsed", r.MaxElapsed)
	// The timeout is written either as p99 x factor or as a bare duration;
	// each spelling is compared on its own, and the effective value on top.
	t.span(q+"attempt_timeout.p99", r.AttemptTimeout.P99)
	t.number(q+"attempt_timeout.factor", r.AttemptTimeout.Factor)
	if r.AttemptTimeout.Factor == 0 {
		// The bare form states no factor.
		t.by[q+"attempt_timeout.factor"] = fact{path: q + "attempt_timeout.factor", row: q + "attempt_timeout.factor", kind: Number}
	}
	t.span(q+"attempt_timeout", r.AttemptTimeout.Bare)
	t.text(q+"deadline", Enum, string(r.Deadline))
	t.flag(q+"propagate_deadline", r.PropagateDeadline)
	t.flag(q+"log_retries", r.LogRetries)
	t.presence(q+"budget", r.Budget != nil)
	if b := r.Budget; b != nil {
		t.text(q+"budget.kind", Enum, string(b.Kind))
		t.number(q+"budget.capacity", float64(b.Capacity))
		t.number(q+"budget.transient_cost", float64(b.TransientCost))
		t.number(q+"budget.throttle_cost", float64(b.ThrottleCost))
		t.number(q+"budget.success_refund", float64(b.SuccessRefund))
	}
	t.elems(q+"stacking", Sequence, r.Stacking)
	t.number(q+"fleet", float64(r.Fleet))

	t.presence("sdk", c.SDK != nil)
	if s := c.SDK; s != nil {
		t.elems("sdk.languages", Set, s.Languages)
		t.text("sdk.retries", Enum, string(s.Retries))
		t.flag("sdk.auto_idempotency_key", s.AutoIdempotencyKey)
	}

	t.text("docs.out", Text, c.Docs.Out)
	t.elems("docs.copy.include", Sequence, c.Docs.Copy.Include)
	var allow []string
	for _, a := range c.Docs.Copy.Allow {
		allow = append(allow, a.Path+" "+a.Rule+": "+a.Because)
	}
	t.elems("docs.copy.allow", Sequence, allow)
	t.flag("docs.copy.lint_code", c.Docs.Copy.LintCode)
	var waive []string
	for _, w := range c.Lint.Waive {
		s := w.Rule
		if w.Path != "" {
			s += " at " + w.Path
		}
		waive = append(waive, s+": "+w.Because)
	}
	t.elems("lint.waive", Sequence, waive)
	var changes []string
	for _, ch := range c.Changes {
		changes = append(changes, ch.Field+": "+ch.Because)
	}
	t.elems("changes", Set, changes)
	return h, t
}

func endpointFacts(e contract.Endpoint, prefix string) *facts {
	fs := &facts{}
	fs.text(prefix+".operation", Text, e.Operation)
	fs.text(prefix+".mutation", Text, e.Mutation)
	fs.text(prefix+".effect", Enum, string(e.Effect))
	fs.text(prefix+".key", Enum, string(e.Key))
	fs.text(prefix+".unsafe_to_retry", Text, e.UnsafeToRetry)
	fs.elems(prefix+".external_calls", Set, e.ExternalCalls)
	fs.elems(prefix+".recovery_points", Sequence, e.RecoveryPoints)
	fs.flag(prefix+".single_transaction", e.SingleTransaction)
	fs.text(prefix+".summary", Text, e.Summary)
	return fs
}

// answersDiffer reports whether the issue-16 answers of an endpoint changed.
// Their facts are only built then: eight facts fit one map group, and a
// 50,000-endpoint Compare would otherwise carry three more per endpoint.
func answersDiffer(a, b contract.Endpoint) bool {
	return a.ExternalCallsStated != b.ExternalCallsStated || a.MaxDuration.D != b.MaxDuration.D || a.Unreviewed != b.Unreviewed || a.MaxKeyLength != b.MaxKeyLength ||
		exampleBody(a) != exampleBody(b) || examplePath(a) != examplePath(b)
}

// exampleBody and examplePath are the endpoint's example request as text
// ("" when the contract states none).
func exampleBody(e contract.Endpoint) string {
	if e.Example == nil || e.Example.Body == nil {
		return ""
	}
	return e.Example.Body.String()
}

func examplePath(e contract.Endpoint) string {
	if e.Example == nil {
		return ""
	}
	var parts []string
	for _, name := range contract.PathParams(e.Path) {
		if v, ok := e.Example.Path[name]; ok {
			parts = append(parts, name+"="+v)
		}
	}
	return strings.Join(parts, ", ")
}

// addAnswerFacts adds the endpoint's answers: whether external_calls is
// written at all ([] answers "none", a missing list answers nothing), the
// handler's max_duration, whether its effect was reviewed, and the longest
// key it takes (maxKey: its own max_key_length, else the API-wide one).
func addAnswerFacts(fs *facts, e contract.Endpoint, prefix string, maxKey int) *facts {
	fs.number(prefix+".max_key_length", float64(maxKey))
	fs.flag(prefix+".external_calls_stated", e.ExternalCallsStated)
	fs.span(prefix+".max_duration", e.MaxDuration)
	fs.flag(prefix+".reviewed", !e.Unreviewed)
	fs.text(prefix+".example.body", Text, exampleBody(e))
	fs.text(prefix+".example.path", Text, examplePath(e))
	return fs
}

// endpointKey matches endpoints across revisions: the same method on the
// same path shape is the same endpoint, whatever its place in the list or
// the names of its path parameters.
func endpointKey(e contract.Endpoint) string {
	return e.Method + " " + contract.PathShape(e.Path)
}

func compareEndpoints(old, new *contract.Contract) []Change {
	oldAt := map[string]int{}
	for i, e := range old.Endpoints {
		oldAt[endpointKey(e)] = i
	}
	matched := map[int]bool{}
	var out []Change
	for i, e := range new.Endpoints {
		field := fmt.Sprintf("endpoints[%d]", i)
		j, ok := oldAt[endpointKey(e)]
		if !ok {
			out = append(out, endpointPresence(Added, field, "", e.Operation, e.Operation, new.PosOf(field)))
			continue
		}
		matched[j] = true
		// Old facts carry the new index so paths line up.
		of, nf := endpointFacts(old.Endpoints[j], field), endpointFacts(e, field)
		if answersDiffer(old.Endpoints[j], e) {
			addAnswerFacts(of, old.Endpoints[j], field, old.MaxKeyLengthFor(old.Endpoints[j]))
			addAnswerFacts(nf, e, field, new.MaxKeyLengthFor(e))
		}
		cs := compareFacts(of, nf, new)
		for k := range cs {
			cs[k].Endpoint = e.Operation
			// An effect that repeats on every call breaks callers who retry
			// without a key; when the key is required there are none.
			if cs[k].Row == "endpoints[].effect" && cs[k].Class == Breaking && e.Key == contract.KeyRequired {
				const why = "the endpoint's effect is now {new} instead of {old}; the key is required, so retries with the same key stay safe"
				cs[k].Class = Notable
				cs[k].Why, cs[k].whyTmpl = expand(why, cs[k].Old, cs[k].New, ""), why
				cs[k].Migration, cs[k].migrationTmpl = "", ""
			}
		}
		out = append(out, cs...)
	}
	for j, e := range old.Endpoints {
		if !matched[j] {
			out = append(out, endpointPresence(Removed, fmt.Sprintf("endpoints[%d]", j), e.Operation, "", e.Operation, new.PosOf("endpoints")))
		}
	}
	return out
}

// compareFacts compares the facts both sides have, in the new side's order.
// A fact one side lacks belongs to an optional section that is absent there;
// the section's Presence fact reports it.
func compareFacts(old, new *facts, nc *contract.Contract) []Change {
	var out []Change
	for _, path := range new.order {
		n := new.by[path]
		o, ok := old.by[path]
		if !ok {
			continue
		}
		out = append(out, compareFact(o, n, nc)...)
	}
	return out
}

func compareFact(o, n fact, nc *contract.Contract) []Change {
	row, ok := rowByField(n.row)
	if !ok {
		// Caught by TestEveryFactHasARow; never silently dropped.
		panic("diff: no classification row for " + n.row)
	}
	mk := func(dir Direction, value string) Change {
		oc, used, ok := row.outcome(dir, n.text)
		if !ok {
			panic(fmt.Sprintf("diff: row %s has no outcome for %s", row.Field, dir))
		}
		return Change{
			Field: n.path, Row: row.Field, Class: oc.Class, Direction: dir, Old: o.text, New: n.text, rule: used,
			Why:       expand(oc.Why, o.text, n.text, value),
			Migration: expand(oc.Migration, o.text, n.text, value),
			whyTmpl:   oc.Why, migrationTmpl: oc.Migration, value: value,
			Pos: nc.PosOf(n.path),
		}
	}
	switch n.kind {
	case Set:
		var out []Change
		for _, v := range missing(o.list, n.list, n.covered) {
			out = append(out, mk(Removed, v))
		}
		for _, v := range missing(n.list, o.list, n.covered) {
			out = append(out, mk(Added, v))
		}
		return out
	case Sequence:
		if o.text == n.text && len(o.list) == len(n.list) {
			return nil
		}
		// A first element may mean more than a change of order (the first
		// recovery point of an endpoint): a row that says so classes it.
		if _, _, ok := row.outcome(Added, n.text); ok && len(o.list) == 0 {
			return []Change{mk(Added, "")}
		}
		return []Change{mk(Changed, "")}
	case Number, Span, Flag:
		if o.num == n.num {
			return nil
		}
		switch {
		case o.text == "":
			return []Change{mk(Added, "")}
		case n.text == "":
			return []Change{mk(Removed, "")}
		case n.num > o.num:
			return []Change{mk(Raised, "")}
		default:
			return []Change{mk(Lowered, "")}
		}
	default: // Text, Enum, Presence
		if o.text == n.text {
			return nil
		}
		switch {
		case o.text == "":
			return []Change{mk(Added, "")}
		case n.text == "":
			return []Change{mk(Removed, "")}
		}
		return []Change{mk(Changed, "")}
	}
}

// missing returns the elements of a that b lacks (or does not cover), in
// a's order.
func missing(a, b []string, covered func(string, []string) bool) []string {
	in := map[string]bool{}
	for _, s := range b {
		in[s] = true
	}
	var out []string
	for _, s := range a {
		if !in[s] && (covered == nil || !covered(s, b)) {
			out = append(out, s)
		}
	}
	return out
}

func withCover(f fact, covered func(string, []string) bool) fact {
	f.covered = covered
	return f
}

// statusCovered reports whether the retry.statuses entry elem ("502",
// "5XX", "any") is still retried under list: "any" covers everything, a
// class covers its codes. Replacing 502, 503 and 504 by 5XX drops nothing.
func statusCovered(elem string, list []string) bool {
	for _, s := range list {
		switch {
		case s == elem || s == "any":
			return true
		case len(s) == 3 && strings.HasSuffix(s, "XX") && len(elem) == 3 && elem[0] == s[0] && !strings.HasSuffix(elem, "XX"):
			return true
		}
	}
	return false
}

// placeholder finds {old}, {new} and {value} in a template.
var placeholder = regexp.MustCompile(`\{(old|new|value)\}`)

// expandMarkdown expands a template for Markdown: the template's own words
// escaped, each value in a code span (so it reads as a value, and a
// figure from an earlier revision is not mistaken for copy).
func expandMarkdown(tmpl, old, new, value string) string {
	vals := map[string]string{"{old}": show(old), "{new}": show(new), "{value}": value}
	var b strings.Builder
	last := 0
	for _, m := range placeholder.FindAllStringIndex(tmpl, -1) {
		b.WriteString(mdEscape(tmpl[last:m[0]]))
		b.WriteString(code(vals[tmpl[m[0]:m[1]]]))
		last = m[1]
	}
	b.WriteString(mdEscape(tmpl[last:]))
	return b.String()
}

func expand(tmpl, old, new, value string) string {
	if tmpl == "" {
		return ""
	}
	return strings.NewReplacer("{old}", show(old), "{new}", show(new), "{value}", value).Replace(tmpl)
}

// show renders an absent value readably in prose.
func show(v string) string {
	if v == "" {
		return "(none)"
	}
	return v
}

// problemFormat is the error bodies' format, "json" when the contract does
// not say: `format: json` changes nothing a client sees.
func problemFormat(b contract.ErrorBody) string {
	if b.Format == "" {
		return string(contract.ErrorFormatJSON)
	}
	return string(b.Format)
}
