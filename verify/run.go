package verify

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/findings"
)

// Options configure one run.
type Options struct {
	Contract *contract.Contract
	Plan     *Plan
	// BaseURL overrides the plan's base_url ("" keeps it).
	BaseURL string
	// Only restricts the run to these gates (nil: all).
	Only []string
	// Concurrency overrides the plan's (0 keeps it).
	Concurrency int
	// Yes allows a base URL whose host is not loopback.
	Yes bool
	// Env is the server's environment (the CLI passes os.Environ()).
	Env []string
	// ServerLog receives the server's output (nil: kept only for errors).
	ServerLog io.Writer
	// Progress, when set, is called as each gate ends.
	Progress func(GateResult)
	// CrashTrials per external call and kill point; 0 means 1 (two trials
	// per call in all: before and after the stub answers).
	CrashTrials int
	// Timeout bounds the whole run (0: DefaultTimeout).
	Timeout time.Duration
}

// DefaultTimeout bounds a run when Options.Timeout is 0.
const DefaultTimeout = 15 * time.Minute

// ErrRunTimeout is the cause of a run cut off by Options.Timeout;
// ErrInterrupted, of one cut off by the caller (Ctrl-C, SIGTERM).
var (
	ErrRunTimeout  = errors.New("the run reached its --timeout")
	ErrInterrupted = errors.New("interrupted (Ctrl-C or SIGTERM)")
)

// GateResult is one gate of one operation, as the JSON `gates` list shows it.
type GateResult struct {
	Gate      string  `json:"gate"`
	Operation string  `json:"operation"`
	Result    Outcome `json:"result"`
	Reason    string  `json:"reason"`
	Requests  int     `json:"requests"`
	Seconds   float64 `json:"seconds"`
	// Effects says what the effect count showed, or that it was not observed.
	Effects string `json:"effects"`
	// SpreadMS is the concurrency gate's release spread (first to last start).
	SpreadMS *float64 `json:"release_spread_ms,omitempty"`
	// Reproduction is the failing exchange as curl commands.
	Reproduction []string `json:"reproduction,omitempty"`
}

// Finding is a failed gate as a finding, with its reproduction.
type Finding struct {
	findings.Finding
	Reproduction []string
}

// Result is a whole run.
type Result struct {
	BaseURL        string
	ServerCommand  []string
	Gates          []GateResult
	Findings       []Finding
	EffectsCounted bool
	// Causes are failures that several gates of one operation share, said
	// once, before the gates.
	Causes []string
	// Aborted is set when the server stopped answering mid-run: the
	// results above are what was observed before.
	Aborted error
}

// CheckTarget refuses a non-loopback host unless yes is set.
func CheckTarget(base string, yes bool) error {
	u, err := url.Parse(base)
	if err != nil || u.Host == "" {
		return fmt.Errorf("%q is not an absolute URL", base)
	}
	if isLoopback(u.Hostname()) || yes {
		return nil
	}
	return fmt.Errorf("%s is not a loopback address: verify sends real requests that create real effects; point it at a local or staging server, and pass --yes to confirm", u.Host)
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// runner holds the state of one run.
type runner struct {
	o       Options
	c       *contract.Contract
	plan    *Plan
	base    string
	client  *http.Client
	red     redactor
	stub    *stub
	proc    *serverProc
	aborted error
	ctx     context.Context
	// cur collects the current gate's exchange.
	cur *gateState
	// fills are the placeholder values drawn per key.
	fills fills
	// causes are the current operation's failures' causes, by gate.
	causes []gateCause
}

type gateState struct {
	// originalSent is when the gate's original request was sent: a key's
	// replay window runs from about then.
	originalSent time.Time
	// settleNotes are counts that moved during a settle time.
	settleNotes []string
	res         GateResult
	repro       []string
	start       time.Time
	// op is the gate's operation (a GraphQL answer is read for its mutation).
	op Operation
}

// errUnresponsive marks a request that got no answer outside the crash gate.
var errUnresponsive = errors.New("server stopped answering")

// Run runs the gates. A problem with the plan or the server's start is
// returned as an error (a *contract.LoadError at the plan line) before any
// gate request; a server that stops answering mid-run ends the run with
// Result.Aborted set and the gates observed so far.
func Run(ctx context.Context, o Options) (*Result, error) {
	if gaps := o.Contract.VerifyGaps(); len(gaps) > 0 {
		return nil, fmt.Errorf("verify cannot check this contract yet: it does not act on %s; a sound server would be judged by requests it refuses (issue 32)", strings.Join(gaps, ", "))
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeoutCause(ctx, o.Timeout, ErrRunTimeout)
	defer cancel()
	r := &runner{o: o, c: o.Contract, plan: o.Plan, ctx: ctx, red: newRedactor(o.Plan.secrets)}
	if o.Concurrency == 0 {
		o.Concurrency = o.Plan.Concurrency
		r.o.Concurrency = o.Concurrency
	}
	if o.Concurrency < 2 || o.Concurrency > MaxConcurrency {
		return nil, fmt.Errorf("--concurrency must be from 2 to %d", MaxConcurrency)
	}
	r.client = newClient(o.Plan)
	defer r.client.CloseIdleConnections()
	res := &Result{}
	r.base = o.BaseURL
	if r.base == "" {
		r.base = o.Plan.BaseURL
	}
	if o.Plan.Server != nil {
		release, err := r.hostServer(res)
		defer release()
		if err != nil {
			return nil, err
		}
	}
	r.base = strings.TrimRight(r.base, "/")
	if err := CheckTarget(r.base, o.Yes); err != nil {
		return nil, err
	}
	res.BaseURL = r.base
	for _, op := range o.Plan.Operations {
		r.runOperation(op, res)
	}
	if !res.EffectsCounted && r.aborted == nil {
		res.Findings = append(res.Findings, r.effectsUnobserved())
	}
	if r.proc != nil {
		if err := r.proc.stop(); err != nil && r.aborted == nil {
			r.aborted = err
		}
	}
	res.Aborted = r.aborted
	return res, nil
}

// hostServer starts the stub of the plan's external calls and, unless
// --base-url points at a server already running, the plan's server command
// on a free port. release stops what it started; call it even when err is
// set: a start that fails may leave the command's children running in its
// group.
func (r *runner) hostServer(res *Result) (release func(), err error) {
	st, err := startStub(r.plan.Crash.Unkeyed)
	if err != nil {
		return func() {}, err
	}
	r.stub = st
	r.proc = &serverProc{spec: r.plan.Server, env: append(slices.Clone(r.o.Env), "RETRYSPEC_EXTERNAL_URL="+st.URL()), logs: r.o.ServerLog}
	if r.o.BaseURL != "" {
		return st.close, nil
	}
	release = func() {
		r.proc.kill()
		st.close()
	}
	if err := r.proc.start(r.ctx); err != nil {
		return release, r.planStartError(err)
	}
	r.base = "http://" + r.proc.addr
	res.ServerCommand = r.plan.Server.Shown
	return release, nil
}

// runOperation runs the chosen gates on one operation, in the table's
// order, until the run is aborted or its context ends, and reports each
// gate as it finishes.
func (r *runner) runOperation(op Operation, res *Result) {
	for _, g := range Gates {
		if r.o.Only != nil && !slices.Contains(r.o.Only, g.ID) {
			continue
		}
		if r.aborted == nil && r.ctx.Err() != nil {
			r.aborted = r.stopped()
		}
		if r.aborted != nil {
			break
		}
		gr, f := r.runGate(g, op)
		res.Gates = append(res.Gates, gr)
		if f != nil {
			res.Findings = append(res.Findings, *f)
		}
		if r.o.Progress != nil {
			r.o.Progress(gr)
		}
	}
	if op.Effects != nil {
		res.EffectsCounted = true
	}
	res.Causes = append(res.Causes, sharedCauses(op.Name, r.causes)...)
	r.causes = nil
}

// effectsUnobserved warns that no gate counted side effects, so every
// verdict rests on responses alone.
func (r *runner) effectsUnobserved() Finding {
	return Finding{Finding: findings.Finding{
		Rule: RuleEffectsUnobserved, Severity: findings.Warning, File: r.plan.File, Line: 1, Column: 1,
		Message: "no operation in the plan has effects, so no gate counted side effects: every verdict rests on responses alone and proves less (a server can answer correctly and still charge twice)",
		Fix:     `add effects: {request: "GET /v1/transfers?idempotency_key={key}", count: /count} to each operation`,
	}}
}

// stopped says why the run's context ended: its --timeout, or the caller.
func (r *runner) stopped() error {
	if errors.Is(context.Cause(r.ctx), ErrRunTimeout) {
		return fmt.Errorf("%w (%s); raise --timeout to let every gate finish", ErrRunTimeout, r.o.Timeout)
	}
	return ErrInterrupted
}

// newClient is the client of every request but the concurrency gate's.
func newClient(p *Plan) *http.Client {
	return &http.Client{
		Timeout:   p.RequestTimeout,
		Transport: &http.Transport{MaxIdleConnsPerHost: 4, DisableCompression: true, Proxy: nil, MaxResponseHeaderBytes: maxHeader},
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

func (r *runner) planStartError(err error) error {
	var se *startError
	if !errors.As(err, &se) {
		return err
	}
	p := r.plan.Server.Pos
	if se.ready {
		p = r.plan.Server.ReadyPos
	}
	return &contract.LoadError{File: r.plan.File, Source: r.plan.Source, Diagnostics: []contract.Diagnostic{{
		File: r.plan.File, Pos: p, Message: r.red.String(se.msg), Fix: se.fix,
	}}}
}

// runGate runs one gate of one operation, timing it and turning a failure
// into a finding at the contract line the gate checks.
func (r *runner) runGate(gate Gate, op Operation) (GateResult, *Finding) {
	r.cur = &gateState{res: GateResult{Gate: gate.ID, Operation: op.Name}, start: time.Now(), op: op}
	skip := gate.skipReason(r, op)
	var fail *failure
	if skip == "" {
		skip, fail = gate.run(r, op)
	}
	if r.aborted == nil && r.ctx.Err() != nil {
		r.aborted = r.stopped()
	}
	g := r.cur.res
	g.Seconds = time.Since(r.cur.start).Seconds()
	if g.Effects == "" {
		g.Effects = "not observed: the plan has no effects for this operation"
		if op.Effects != nil {
			g.Effects = "not observed: the gate ended before it counted effects"
		}
	}
	switch {
	case r.aborted != nil && fail != nil && (errors.Is(r.aborted, ErrRunTimeout) || errors.Is(r.aborted, ErrInterrupted)):
		// Cut off, not judged: neither a pass nor a crashed handler.
		g.Result, g.Reason, g.Effects = Skipped, "not finished: "+r.aborted.Error(), "not observed: the gate did not finish"
		return g, nil
	case r.aborted != nil && fail != nil && errors.Is(fail.err, errUnresponsive):
		g.Result, g.Reason = Failed, r.red.String(fail.msg)
		return g, nil
	case fail != nil:
		if fail.cause != "" {
			r.causes = append(r.causes, gateCause{gate.ID, fail.cause})
		}
		if fail.path == "" {
			// A request that got no answer while the server still runs: the
			// handler broke on it (a panic, a dropped connection).
			fail.path = gate.Path
			fail.msg += " while the server still answers other requests: the handler likely crashed on this request (see the server's log)"
			fail.fix = "make the endpoint answer this request; run verify with --server-output to see the server's log"
		}
		g.Result, g.Reason = Failed, r.red.String(fail.msg)
		g.Reproduction = r.cur.repro
		path := fail.path
		f := Finding{Finding: findings.Finding{
			Rule: gate.ID, Severity: findings.Error, File: r.c.File, Path: path,
			Message: op.Name + ": " + r.red.String(fail.msg), Fix: fail.fix,
		}, Reproduction: r.cur.repro}
		p := r.c.PosOf(path)
		f.Line, f.Column = p.Line, p.Column
		return g, &f
	case skip != "":
		g.Result, g.Reason = Skipped, skip
		g.Effects = "not observed: gate skipped"
	default:
		g.Result = Passed
	}
	return g, nil
}

type gateCause struct{ gate, cause string }

// sharedCauses says, for each cause two or more gates failed on, which
// gates share it.
func sharedCauses(op string, cs []gateCause) []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range cs {
		if seen[c.cause] {
			continue
		}
		seen[c.cause] = true
		var gates []string
		for _, d := range cs {
			if d.cause == c.cause {
				gates = append(gates, d.gate)
			}
		}
		if len(gates) > 1 {
			out = append(out, fmt.Sprintf("%s: %s (%s)", op, c.cause, strings.Join(gates, ", ")))
		}
	}
	return out
}

// failure is a gate that did not hold: what was seen, where in the contract
// the broken promise is written, and the fix.
type failure struct {
	msg, path, fix string
	err            error
	// cause names a failure several gates can share (the plan's request is
	// refused, the route is not wrapped), so the report says it once, first.
	cause string
}

// Shared causes of failures.
const (
	causeUnwrapped = "the route does not look wrapped by idempotency at all: these gates failed as an unprotected handler does (a keyless request accepted, a repeat or a concurrent copy run again, another body run under a used key); wrap the route with the idempotency middleware first, then run verify again"
)

func (f *failure) because(cause string) *failure {
	f.cause = cause
	return f
}

func failf(path, fix, format string, args ...any) *failure {
	return &failure{msg: fmt.Sprintf(format, args...), path: path, fix: fix}
}

// newKey returns a fresh random key of n characters from [a-z0-9].
func newKey(n int) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, n)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}

// keyLen is the length of the keys verify sends to op: 40 characters, or
// fewer when the endpoint takes fewer (contract.MaxKeyLengthFor).
func (r *runner) keyLen(op Operation) int {
	n := r.c.MaxKeyLengthFor(op.Endpoint)
	if n <= 0 || n > 40 {
		n = 40
	}
	return n
}

// fillPath fills {param} in a path template with escaping: path segments
// with PathEscape, the query with QueryEscape.
func fillTarget(target string, vals map[string]string, key string) string {
	path, query, hasQuery := strings.Cut(target, "?")
	fill := func(s string, esc func(string) string) string {
		return paramRef.ReplaceAllStringFunc(s, func(m string) string {
			name := m[1 : len(m)-1]
			if name == "key" && key != "" {
				return esc(key)
			}
			if v, ok := vals[name]; ok {
				return esc(v)
			}
			return m
		})
	}
	out := fill(path, url.PathEscape)
	if hasQuery {
		out += "?" + fill(query, url.QueryEscape)
	}
	return out
}

// principal selects whose headers a request carries.
type principal int

const (
	primary principal = iota
	other
)

func (r *runner) headers(who principal) []sentHeader {
	hs := r.plan.Headers
	if who == other {
		hs = r.plan.OtherPrincipal
	}
	out := make([]sentHeader, 0, len(hs)+2)
	for _, h := range hs {
		sh := sentHeader{Name: h.Name, Value: h.Value, Secret: true}
		if varRef.MatchString(h.Raw) {
			sh.Shown = h.Raw
		}
		out = append(out, sh)
	}
	return out
}

// filled is the operation's path values and who's headers with the
// placeholders drawn for key: the operation's request and its effects
// request name the same resource.
func (r *runner) filled(op Operation, key string, who principal) (map[string]string, []sentHeader, *strings.Replacer) {
	rep := r.fills.replacer(key)
	vals := make(map[string]string, len(op.PathValues))
	for k, v := range op.PathValues {
		vals[k] = rep.Replace(v)
	}
	hs := r.headers(who)
	for i := range hs {
		hs[i].Value, hs[i].Shown = rep.Replace(hs[i].Value), rep.Replace(hs[i].Shown)
	}
	return vals, hs, rep
}

// opRequest builds the operation's request with key ("" for none) and
// body: the key where the contract's key_in says, and with first_sent,
// the key's first-sent time.
func (r *runner) opRequest(op Operation, key string, body []byte, who principal) Request {
	vals, hs, rep := r.filled(op, key, who)
	if body != nil && hasPlaceholder(string(body)) {
		body = []byte(rep.Replace(string(body)))
	}
	req := Request{Method: op.Endpoint.Method, URL: r.base + fillTarget(op.Endpoint.Path, vals, ""), Headers: hs, Body: body}
	if r.c.Idempotency.InGraphQL() {
		r.placeGraphQL(&req, op, key)
	} else {
		r.placeKey(&req, key)
	}
	r.placeFirstSent(&req, key)
	if req.Body != nil {
		req.Headers = append(req.Headers, sentHeader{Name: "Content-Type", Value: "application/json"})
	}
	return req
}

// send performs one request and records it for the reproduction. A
// transport error ends the run (the server stopped answering) unless
// tolerate is set (the crash gate expects them).
func (r *runner) send(req Request, tolerate bool) Response {
	r.cur.res.Requests++
	r.cur.repro = append(r.cur.repro, r.red.String(req.Curl()))
	resp := r.do(req)
	if resp.Err != nil && r.aborted == nil && r.ctx.Err() != nil {
		r.aborted = r.stopped()
		resp.Err = r.aborted
		return resp
	}
	if resp.Err != nil && !tolerate && r.aborted == nil && !r.alive() {
		r.aborted = fmt.Errorf("%w: %s %s got no answer within request_timeout %s: %v", errUnresponsive, req.Method, req.URL, r.plan.RequestTimeout, r.red.String(resp.Err.Error()))
	}
	return resp
}

// alive reports whether the server still answers at all (any status), to
// tell a request that crashed its handler from a server that is gone.
func (r *runner) alive() bool {
	probe := Request{Method: "GET", URL: r.base + "/", Headers: r.headers(primary)}
	if r.plan.Server != nil {
		probe = Request{Method: r.plan.Server.ReadyMethod, URL: r.base + r.plan.Server.ReadyPath}
	}
	return r.do(probe).Err == nil
}

func (r *runner) do(req Request) Response {
	ctx, cancel := context.WithTimeout(r.ctx, r.plan.RequestTimeout)
	defer cancel()
	hr, err := req.httpRequest(ctx)
	if err != nil {
		return Response{Err: err}
	}
	start := time.Now()
	resp, err := r.client.Do(hr)
	if err != nil {
		return Response{Err: err, Started: start}
	}
	defer resp.Body.Close()
	body, n, sum, err := readBody(resp.Body)
	return Response{Status: resp.StatusCode, Header: resp.Header, Body: body, BodyLen: n, BodySum: sum, Err: err, Started: start}
}

// count reads the operation's effect count for key, as principal who. ok
// is false without effects in the plan.
func (r *runner) count(op Operation, key string, who principal) (n int, ok bool, f *failure) {
	if op.Effects == nil {
		return 0, false, nil
	}
	vals, hs, _ := r.filled(op, key, who)
	req := Request{Method: op.Effects.Method, URL: r.base + fillTarget(op.Effects.Target, vals, key), Headers: hs}
	resp := r.send(req, false)
	if resp.Err != nil {
		return 0, true, &failure{msg: "the effects request got no answer: " + resp.Err.Error(), err: errUnresponsive}
	}
	bad := func(why string) *failure {
		return &failure{msg: fmt.Sprintf("the effects request %s %s %s (plan %s:%d); fix the plan's effects or the endpoint", req.Method, op.Effects.Target, why, r.plan.File, op.Effects.Pos.Line),
			path: fmt.Sprintf("endpoints[%d].operation", op.EndpointIndex), fix: "make effects.request a read that answers 2xx with the count for {key}, and effects.count a pointer to it"}
	}
	if resp.Status/100 != 2 {
		return 0, true, bad("answered " + resp.Describe())
	}
	var doc any
	if err := json.Unmarshal(resp.Body, &doc); err != nil {
		return 0, true, bad("did not answer JSON")
	}
	v, err := pointer(doc, op.Effects.Count)
	if err != nil {
		return 0, true, bad(err.Error())
	}
	switch x := v.(type) {
	case float64:
		return int(x), true, nil
	case []any:
		return len(x), true, nil
	}
	return 0, true, bad(fmt.Sprintf("points %s at neither a number nor an array", op.Effects.Count))
}

// settledCount counts an effect twice: at once and after the plan's settle
// time, and returns the later reading, the one judged. When the two differ,
// the gate's effects note says both. Without effects it still waits when
// the stub is hosted, so late external calls are seen.
func (r *runner) settledCount(op Operation, key string, who principal) (int, bool, *failure) {
	if op.Effects == nil && r.stub == nil {
		return 0, false, nil
	}
	first, ok, f := r.count(op, key, who)
	if f != nil {
		return 0, ok, f
	}
	if r.plan.Settle > 0 {
		select {
		case <-time.After(r.plan.Settle):
		case <-r.ctx.Done():
			return 0, ok, &failure{msg: "interrupted", err: r.ctx.Err()}
		}
	}
	later, _, f := r.count(op, key, who)
	if f != nil {
		return 0, ok, f
	}
	if ok && later != first {
		r.cur.settleNotes = append(r.cur.settleNotes, fmt.Sprintf("%d at once, %d after settle %s", first, later, r.plan.Settle))
	}
	return later, ok, nil
}

// pointer resolves an RFC 6901 JSON pointer.
func pointer(doc any, p string) (any, error) {
	if p == "" {
		return doc, nil
	}
	for _, tok := range strings.Split(p[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := doc.(type) {
		case map[string]any:
			v, ok := x[tok]
			if !ok {
				return nil, fmt.Errorf("has no member %q at %s", tok, p)
			}
			doc = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil, fmt.Errorf("has no index %s at %s", tok, p)
			}
			doc = x[i]
		default:
			return nil, fmt.Errorf("cannot descend into a scalar at %s", p)
		}
	}
	return doc, nil
}

// errorCode finds the first string member "code", breadth-first.
// errorCodeAt is the string at the JSON pointer tokens in body, "" when
// the body has none there.
func errorCodeAt(body []byte, tokens []string) string {
	var node any
	if json.Unmarshal(body, &node) != nil {
		return ""
	}
	for _, tok := range tokens {
		switch x := node.(type) {
		case map[string]any:
			node = x[tok]
		case []any:
			if tok != "0" || len(x) == 0 {
				return ""
			}
			node = x[0]
		default:
			return ""
		}
	}
	s, _ := node.(string)
	return s
}

func errorCode(body []byte) string {
	var doc any
	if json.Unmarshal(body, &doc) != nil {
		return ""
	}
	queue := []any{doc}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		switch x := n.(type) {
		case map[string]any:
			if s, ok := x["code"].(string); ok {
				return s
			}
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				queue = append(queue, x[k])
			}
		case []any:
			queue = append(queue, x...)
		}
	}
	return ""
}

// matches reports whether resp is the conflict c. The code is read where
// the API puts it (api.error_body.code_at) when the contract says, else
// from the first "code" member found.
func (r *runner) matches(resp Response, c contract.Conflict) bool {
	if r.c.Idempotency.InGraphQL() {
		return r.matchesGraphQL(resp, c)
	}
	code := func() string { return errorCode(resp.Body) }
	if eb := r.c.API.ErrorBody; eb.Set() {
		code = func() string { return errorCodeAt(resp.Body, eb.CodeAt) }
	}
	return resp.Err == nil && resp.Status == c.Status && (c.Code == "" || code() == c.Code)
}

func conflictText(c contract.Conflict) string {
	if c.Code == "" {
		return strconv.Itoa(c.Status)
	}
	return fmt.Sprintf("%d %s", c.Status, c.Code)
}

// sameValue reports whether two bodies are the same bytes, or the same
// JSON value when both were read whole.
func (resp Response) sameValue(o Response) bool {
	if resp.SameBody(o) {
		return true
	}
	return resp.BodyLen <= maxBody && o.BodyLen <= maxBody && sameJSON(resp.Body, o.Body)
}

// sameJSON reports whether two bodies are the same JSON value (or the same bytes).
func sameJSON(a, b []byte) bool {
	if string(a) == string(b) {
		return true
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}
