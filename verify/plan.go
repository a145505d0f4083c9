package verify

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/retryspec/retryspec/contract"
)

// Plan is a loaded retryspec.verify.yaml: what to send to which endpoint and
// how to count its effects. Every value knows its line, for errors.
type Plan struct {
	File   string
	Source []byte

	BaseURL    string
	BaseURLPos contract.Pos
	// Headers go with every request; OtherPrincipal (nil when absent) is a
	// second caller's headers for the scope gate.
	Headers        []Header
	OtherPrincipal []Header
	Concurrency    int
	ConcurrencyPos contract.Pos
	// RequestTimeout bounds every single request (extension: request_timeout).
	RequestTimeout time.Duration
	// Settle is how long after a request its effects are counted again
	// (a server may apply effects after it answers); the later count is judged.
	Settle time.Duration
	// ReplayWindow is the replay window the server under test runs when a
	// test setup shortens the contract's (extension: replay_window); 0:
	// the contract's. The after-window gate waits past it.
	ReplayWindow time.Duration
	Operations   []Operation
	Server       *Server
	// Crash tunes the crash gate's kill points and stub.
	Crash Crash
	// secrets are the values read from ${VAR}: never printed.
	secrets []string
}

// Header is one plan header. Value is expanded from the environment;
// output shows *** instead.
type Header struct {
	Name, Value string
	// Raw is the value as written, ${VAR} references unexpanded.
	Raw string
	Pos contract.Pos
}

// Operation is one endpoint under test.
type Operation struct {
	Name     string // "POST /v1/transfers"
	Pos      contract.Pos
	Endpoint contract.Endpoint
	// EndpointIndex is the endpoint's index in the contract, for positions.
	EndpointIndex int
	PathValues    map[string]string
	Body          []byte // compact JSON, or nil
	BodyPos       contract.Pos
	MismatchBody  []byte // nil: derived from Body
	Effects       *Effects
}

// Effects says how to count an operation's effects for one key.
type Effects struct {
	Method string
	Target string // path and query template with {key} and path parameters
	Count  string // RFC 6901 pointer
	Pos    contract.Pos
}

// Crash is the plan's crash: section.
type Crash struct {
	// Delays kill the server this long after a request is sent (the
	// handler's own writes); without them, Sweep points spread over a
	// measured request's duration.
	Delays []time.Duration
	Sweep  int
	// Unkeyed: the external provider has no idempotency keys, so the stub
	// counts every request as an effect (provider_keys: false).
	Unkeyed bool
}

// DefaultCrashSweep is the number of delay kill points without crash.delays.
const DefaultCrashSweep = 3

// Server is how verify runs the server itself.
type Server struct {
	// Command has ${VAR} expanded; Shown is as written, for output.
	Command        []string
	Shown          []string
	Pos            contract.Pos
	ReadyMethod    string
	ReadyPath      string
	ReadyPos       contract.Pos
	StartupTimeout time.Duration
}

// MaxConcurrency bounds the concurrency gate's N.
const MaxConcurrency = 1024

var varRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

type planLoader struct {
	file   string
	src    []byte
	getenv func(string) string
	diags  []contract.Diagnostic
	plan   *Plan
}

func (l *planLoader) errorf(n *yaml.Node, fix, format string, args ...any) {
	p := contract.Pos{}
	if n != nil {
		p = contract.Pos{Line: n.Line, Column: n.Column}
	}
	l.diags = append(l.diags, contract.Diagnostic{File: l.file, Pos: p, Message: fmt.Sprintf(format, args...), Fix: fix})
}

func pos(n *yaml.Node) contract.Pos { return contract.Pos{Line: n.Line, Column: n.Column} }

// LoadPlan reads the plan at path and checks it against the contract.
// getenv resolves ${VAR} in header values. Every problem is a diagnostic
// with the plan's file:line and a fix, in a *contract.LoadError.
func LoadPlan(path string, c *contract.Contract, getenv func(string) string) (*Plan, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		fix := "run `retryspec verify init` to write a starter plan, or pass --plan FILE"
		msg := err.Error()
		if os.IsNotExist(err) {
			msg = "no such file"
		}
		return nil, &contract.LoadError{File: path, Diagnostics: []contract.Diagnostic{{File: path, Message: msg, Fix: fix}}}
	}
	return ParsePlan(path, data, c, getenv)
}

// ParsePlan is LoadPlan on content already read.
func ParsePlan(file string, data []byte, c *contract.Contract, getenv func(string) string) (*Plan, error) {
	l := &planLoader{file: file, src: data, getenv: getenv, plan: &Plan{File: file, Source: data, Concurrency: 16, RequestTimeout: 10 * time.Second, Settle: DefaultSettle, Crash: Crash{Sweep: DefaultCrashSweep}}}
	if len(data) > 1<<20 {
		l.errorf(nil, "a plan is a few dozen lines; pass the right file with --plan", "plan is larger than 1 MiB")
		return nil, l.err()
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		line := 0
		if m := regexp.MustCompile(`line (\d+)`).FindStringSubmatch(err.Error()); m != nil {
			line, _ = strconv.Atoi(m[1])
		}
		l.diags = append(l.diags, contract.Diagnostic{File: file, Pos: contract.Pos{Line: line, Column: 1}, Message: "not valid YAML: " + strings.TrimPrefix(err.Error(), "yaml: "), Fix: "fix the YAML syntax at that line"})
		return nil, l.err()
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		l.errorf(&doc, "start from `retryspec verify init`", "the plan must be a YAML mapping with base_url, headers, operations and server")
		return nil, l.err()
	}
	l.decode(doc.Content[0], c)
	if len(l.diags) > 0 {
		return nil, l.err()
	}
	return l.plan, nil
}

func (l *planLoader) err() error {
	return &contract.LoadError{File: l.file, Source: l.src, Diagnostics: l.diags}
}

var planKeys = []string{"base_url", "headers", "other_principal", "concurrency", "request_timeout", "settle", "replay_window", "operations", "server", "crash"}

// DefaultSettle is the plan's settle when it gives none.
const DefaultSettle = time.Second

func (l *planLoader) decode(root *yaml.Node, c *contract.Contract) {
	p := l.plan
	var opsNode *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch k.Value {
		case "base_url":
			p.BaseURL, p.BaseURLPos = l.baseURL(v), pos(v)
		case "headers":
			p.Headers = l.headers(v, "headers")
		case "other_principal":
			p.OtherPrincipal = l.headers(v, "other_principal")
			if p.OtherPrincipal == nil {
				p.OtherPrincipal = []Header{}
			}
		case "concurrency":
			p.Concurrency, p.ConcurrencyPos = l.concurrency(v), pos(v)
		case "request_timeout":
			p.RequestTimeout = l.duration(v, "request_timeout")
		case "settle":
			p.Settle = l.settle(v)
		case "replay_window":
			p.ReplayWindow = l.replayWindow(v, c)
		case "operations":
			opsNode = v
		case "server":
			p.Server = l.server(v)
		case "crash":
			l.crash(v)
		default:
			fix := "the plan's keys are " + strings.Join(planKeys, ", ")
			if s := contract.DidYouMean(k.Value, planKeys); s != "" {
				fix = "did you mean " + s + "?"
			}
			l.errorf(k, fix, "unknown key %q", k.Value)
		}
	}
	if opsNode == nil {
		l.errorf(root, "add operations: with one entry per keyed endpoint (`retryspec verify init` writes them)", "the plan has no operations")
	} else {
		l.operations(opsNode, c)
	}
	if p.BaseURL == "" && p.Server == nil {
		l.errorf(root, "add base_url: http://127.0.0.1:8080, or a server: section so verify starts the server itself", "the plan has neither base_url nor server")
	}
}

func (l *planLoader) str(v *yaml.Node, what string) string {
	if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
		l.errorf(v, "write a quoted string", "%s must be a string", what)
		return ""
	}
	return v.Value
}

func (l *planLoader) duration(v *yaml.Node, what string) time.Duration {
	d, err := contract.ParseDuration(v.Value)
	if v.Kind != yaml.ScalarNode || err != nil || d <= 0 || d > time.Hour {
		l.errorf(v, "write a duration such as 30s", "%s must be a duration up to 1h, not %q", what, v.Value)
		return time.Second
	}
	return d
}

// headers decodes a header map, expanding ${VAR} from the environment.
func (l *planLoader) headers(v *yaml.Node, what string) []Header {
	if v.Kind != yaml.MappingNode {
		l.errorf(v, "write one `Name: value` per line", "%s must be a mapping of header names to values", what)
		return nil
	}
	var out []Header
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		if !validToken(k.Value) {
			l.errorf(k, "header names are letters, digits and -", "%s: %q is not a valid header name", what, k.Value)
			continue
		}
		expanded := l.expand(val, l.str(val, what+"."+k.Value), what+"."+k.Value)
		if strings.ContainsAny(expanded, "\r\n\x00") {
			l.errorf(val, "remove line breaks from the value", "%s.%s contains a line break", what, k.Value)
			continue
		}
		out = append(out, Header{Name: k.Value, Value: expanded, Raw: val.Value, Pos: pos(val)})
	}
	return out
}

// expand replaces ${VAR} in s from the environment; each value read is a
// secret, masked in every output.
func (l *planLoader) expand(val *yaml.Node, s, what string) string {
	return varRef.ReplaceAllStringFunc(s, func(ref string) string {
		name := varRef.FindStringSubmatch(ref)[1]
		got := ""
		if l.getenv != nil {
			got = l.getenv(name)
		}
		if got == "" {
			l.errorf(val, fmt.Sprintf("export %s=... before running verify (its value is never printed)", name), "%s uses ${%s}, which is not set in the environment", what, name)
			return ""
		}
		l.plan.secrets = append(l.plan.secrets, got)
		return got
	})
}

func validToken(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("!#$%&'*+-.^_`|~", r)) {
			return false
		}
	}
	return true
}

func (l *planLoader) baseURL(v *yaml.Node) string {
	u := l.str(v, "base_url")
	if u != "" {
		if err := CheckBaseURL(u); err != nil {
			l.errorf(v, "write it as http://127.0.0.1:8080", "base_url: %v", err)
		}
	}
	return u
}

func (l *planLoader) concurrency(v *yaml.Node) int {
	n, err := strconv.Atoi(v.Value)
	if v.Kind != yaml.ScalarNode || err != nil || n < 2 || n > MaxConcurrency {
		l.errorf(v, "use a number such as 16 (64 or 256 to stress harder)", "concurrency must be a whole number from 2 to %d, not %q", MaxConcurrency, v.Value)
	}
	return n
}

func (l *planLoader) settle(v *yaml.Node) time.Duration {
	d, err := contract.ParseDuration(v.Value)
	if v.Kind != yaml.ScalarNode || err != nil || d < 0 || d > time.Minute {
		l.errorf(v, "write a duration such as 1s (0s counts at once, for a server that applies every effect before it answers)", "settle must be a duration from 0s to 1m, not %q", v.Value)
	}
	return d
}

// replayWindow reads the test window the server under test runs: never
// longer than the contract's.
func (l *planLoader) replayWindow(v *yaml.Node, c *contract.Contract) time.Duration {
	d, err := contract.ParseDuration(v.Value)
	if v.Kind != yaml.ScalarNode || err != nil || d <= 0 {
		l.errorf(v, "write the window the server under test runs, such as 10s (start it with a short test window so verify can wait past it)", "replay_window must be a positive duration, not %q", v.Value)
	} else if c != nil && c.Idempotency.ReplayWindow.D > 0 && d > c.Idempotency.ReplayWindow.D {
		l.errorf(v, fmt.Sprintf("a test window is shorter than the contract's; remove replay_window to use the contract's %s", c.Idempotency.ReplayWindow.Text), "replay_window %s is longer than the contract's replay_window %s", v.Value, c.Idempotency.ReplayWindow.Text)
	}
	return d
}

func (l *planLoader) operations(v *yaml.Node, c *contract.Contract) {
	if v.Kind != yaml.MappingNode || len(v.Content) == 0 {
		l.errorf(v, `write operations: {"POST /v1/transfers": {body: {...}}}`, "operations must be a mapping from contract operations to what to send")
		return
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		idx, ok := l.endpoint(k, c)
		if !ok {
			continue
		}
		e := c.Endpoints[idx]
		op := Operation{Name: e.Operation, Pos: pos(k), Endpoint: e, EndpointIndex: idx, PathValues: map[string]string{}}
		if val.Kind != yaml.MappingNode {
			l.errorf(val, "give at least body: {...}", "operation %q must be a mapping", k.Value)
			continue
		}
		for j := 0; j+1 < len(val.Content); j += 2 {
			l.operationField(&op, k, val.Content[j], val.Content[j+1], c)
		}
		l.checkParams(k, val, op)
		l.plan.Operations = append(l.plan.Operations, op)
	}
}

// endpoint finds the contract endpoint the plan's operation key k names;
// ok is false, with a diagnostic, when there is none or it takes no key.
func (l *planLoader) endpoint(k *yaml.Node, c *contract.Contract) (idx int, ok bool) {
	idx = slices.IndexFunc(c.Endpoints, func(e contract.Endpoint) bool { return normOp(e.Operation) == normOp(k.Value) })
	if idx < 0 {
		var names []string
		for _, e := range c.Endpoints {
			if e.Keyed() {
				names = append(names, e.Operation)
			}
		}
		fix := "use an operation from the contract's endpoints: " + strings.Join(names, ", ")
		if s := contract.DidYouMean(k.Value, names); s != "" {
			fix = "did you mean " + s + "?"
		}
		l.errorf(k, fix, "operation %q is not in the contract %s", k.Value, c.File)
		return 0, false
	}
	if e := c.Endpoints[idx]; !e.Keyed() {
		l.errorf(k, "verify only keyed endpoints (key: required or optional); remove this entry", "operation %q has key: %s in the contract, so it has no idempotency gates", k.Value, e.Key)
		return 0, false
	}
	return idx, true
}

// operationField reads one field (kk: vv) of the operation named by k.
func (l *planLoader) operationField(op *Operation, k, kk, vv *yaml.Node, c *contract.Contract) {
	switch kk.Value {
	case "path":
		if vv.Kind != yaml.MappingNode {
			l.errorf(vv, "write path: {id: tr_1}", "path must be a mapping of {parameter} names to values")
			return
		}
		for m := 0; m+1 < len(vv.Content); m += 2 {
			op.PathValues[vv.Content[m].Value] = vv.Content[m+1].Value
		}
	case "body":
		op.Body, op.BodyPos = l.jsonBody(vv, "body"), pos(vv)
		l.bodyCarriesKey(vv, op.Body, "body", c)
	case "mismatch_body":
		op.MismatchBody = l.jsonBody(vv, "mismatch_body")
		l.bodyCarriesKey(vv, op.MismatchBody, "mismatch_body", c)
	case "effects":
		op.Effects = l.effects(vv)
	default:
		l.errorf(kk, "an operation takes path, body, mismatch_body and effects", "unknown key %q in operation %q", kk.Value, k.Value)
	}
}

// checkParams refuses a path parameter of the endpoint, or of the effects
// request, that the plan gives no value for.
func (l *planLoader) checkParams(k, val *yaml.Node, op Operation) {
	for _, param := range contract.PathParams(op.Endpoint.Path) {
		if _, ok := op.PathValues[param]; !ok {
			l.errorf(k, fmt.Sprintf("add path: {%s: ...} with a value that exists on the server", param), "operation %q has the path parameter {%s} but the plan gives no value for it", k.Value, param)
		}
	}
	if op.Effects != nil {
		for _, param := range contract.PathParams(op.Effects.Target) {
			if _, ok := op.PathValues[param]; !ok && param != "key" {
				l.errorf(val, "use {key} and the operation's path parameters only", "effects request uses {%s}, which the plan does not define", param)
			}
		}
	}
}

// bodyCarriesKey refuses a body that cannot carry a body key: verify
// puts the key at key_field, a member of the body's top-level object.
func (l *planLoader) bodyCarriesKey(n *yaml.Node, body []byte, what string, c *contract.Contract) {
	id := c.Idempotency
	if id.InGraphQL() {
		l.graphQLArguments(n, body, what, id.GraphQL)
		return
	}
	if !id.InBody() || body == nil {
		return
	}
	if v, err := contract.ParseJSON(body); err == nil && v.Kind == contract.JSONObject {
		return
	}
	l.errorf(n, "write "+what+" as a JSON object ({\"amount\": 1000}); verify adds the key as its "+id.KeyMember()+" member",
		"%s is not a JSON object, but the key travels in the JSON body (idempotency.key_field %s)", what, id.KeyFieldPointer())
}

func normOp(s string) string {
	f := strings.Fields(s)
	if len(f) != 2 {
		return s
	}
	return strings.ToUpper(f[0]) + " " + f[1]
}

var paramRef = regexp.MustCompile(`\{([^{}]+)\}`)

// jsonBody turns a YAML value (a mapping, or a string holding JSON) into
// compact JSON, keeping the plan's member order.
func (l *planLoader) jsonBody(v *yaml.Node, what string) []byte {
	if v.Kind == yaml.ScalarNode && (v.Tag == "!!str" || v.Style != 0) {
		if !json.Valid([]byte(v.Value)) {
			var e error
			var x any
			e = json.Unmarshal([]byte(v.Value), &x)
			l.errorf(v, `write the body as a YAML mapping ({"amount": 1000}) or a string holding valid JSON`, "%s is not JSON: %v", what, e)
			return nil
		}
		var b bytes.Buffer
		_ = json.Compact(&b, []byte(v.Value))
		return b.Bytes()
	}
	var b bytes.Buffer
	if err := nodeJSON(&b, v, 0); err != nil {
		l.errorf(v, "write the body as plain JSON values: mappings, lists, strings, numbers, true, false, null", "%s is not JSON: %v", what, err)
		return nil
	}
	return b.Bytes()
}

func nodeJSON(b *bytes.Buffer, n *yaml.Node, depth int) error {
	if depth > 32 {
		return fmt.Errorf("nested more than 32 levels")
	}
	switch n.Kind {
	case yaml.AliasNode:
		return fmt.Errorf("line %d: YAML aliases are not allowed in a body", n.Line)
	case yaml.MappingNode:
		b.WriteByte('{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			if i > 0 {
				b.WriteByte(',')
			}
			k, _ := json.Marshal(n.Content[i].Value)
			b.Write(k)
			b.WriteByte(':')
			if err := nodeJSON(b, n.Content[i+1], depth+1); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case yaml.SequenceNode:
		b.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := nodeJSON(b, c, depth+1); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!null":
			b.WriteString("null")
		case "!!bool":
			if n.Value == "true" || n.Value == "false" {
				b.WriteString(n.Value)
			} else {
				return fmt.Errorf("line %d: %q is a YAML 1.1 boolean; write true or false", n.Line, n.Value)
			}
		case "!!int", "!!float":
			if !json.Valid([]byte(n.Value)) {
				return fmt.Errorf("line %d: %q is not a JSON number", n.Line, n.Value)
			}
			b.WriteString(n.Value)
		default:
			s, _ := json.Marshal(n.Value)
			b.Write(s)
		}
	default:
		return fmt.Errorf("unsupported YAML value")
	}
	return nil
}

func (l *planLoader) effects(v *yaml.Node) *Effects {
	if v.Kind != yaml.MappingNode {
		l.errorf(v, `write effects: {request: "GET /v1/transfers?idempotency_key={key}", count: /count}`, "effects must be a mapping with request and count")
		return nil
	}
	e := &Effects{Pos: pos(v)}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		switch k.Value {
		case "request":
			f := strings.Fields(val.Value)
			if len(f) != 2 || !strings.HasPrefix(f[1], "/") || !validToken(f[0]) {
				l.errorf(val, `write it as "GET /v1/transfers?idempotency_key={key}"`, "effects.request must be METHOD /path, not %q", val.Value)
				continue
			}
			e.Method, e.Target = strings.ToUpper(f[0]), f[1]
			if !strings.Contains(e.Target, "{key}") {
				l.errorf(val, "put {key} where the idempotency key goes, e.g. ?idempotency_key={key}", "effects.request does not use {key}, so it cannot count one key's effects")
			}
		case "count":
			if !strings.HasPrefix(val.Value, "/") && val.Value != "" {
				l.errorf(val, "write an RFC 6901 pointer such as /count or /data", "effects.count %q is not a JSON pointer", val.Value)
			}
			e.Count = val.Value
		default:
			l.errorf(k, "effects takes request and count", "unknown key %q in effects", k.Value)
		}
	}
	if e.Target == "" {
		l.errorf(v, `add request: "GET /v1/transfers?idempotency_key={key}"`, "effects has no request")
	}
	return e
}

func (l *planLoader) server(v *yaml.Node) *Server {
	if v.Kind != yaml.MappingNode {
		l.errorf(v, `write server: {command: ["./bin/api", "--addr", "{addr}"], ready: "GET /healthz"}`, "server must be a mapping")
		return nil
	}
	s := &Server{Pos: pos(v), StartupTimeout: 30 * time.Second}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		switch k.Value {
		case "command":
			s.Pos = pos(val)
			if val.Kind != yaml.SequenceNode || len(val.Content) == 0 {
				l.errorf(val, `write it as a list: ["./bin/api", "--addr", "{addr}"]`, "server.command must be a non-empty list of arguments")
				continue
			}
			for i, a := range val.Content {
				s.Shown = append(s.Shown, a.Value)
				s.Command = append(s.Command, l.expand(a, a.Value, fmt.Sprintf("server.command[%d]", i)))
			}
			if !slices.ContainsFunc(s.Command, func(a string) bool { return strings.Contains(a, "{addr}") }) {
				l.errorf(val, `pass the address verify chooses, e.g. "--addr", "{addr}"`, "server.command has no {addr}: verify cannot tell the server where to listen")
			}
		case "ready":
			f := strings.Fields(val.Value)
			if len(f) != 2 || !strings.HasPrefix(f[1], "/") {
				l.errorf(val, `write it as "GET /healthz"`, "server.ready must be METHOD /path, not %q", val.Value)
				continue
			}
			s.ReadyMethod, s.ReadyPath, s.ReadyPos = strings.ToUpper(f[0]), f[1], pos(val)
		case "startup_timeout":
			s.StartupTimeout = l.duration(val, "server.startup_timeout")
		default:
			l.errorf(k, "server takes command, ready and startup_timeout", "unknown key %q in server", k.Value)
		}
	}
	if s.Command == nil && len(l.diags) == 0 {
		l.errorf(v, `add command: ["./bin/api", "--addr", "{addr}"]`, "server has no command")
	}
	if s.ReadyPath == "" {
		s.ReadyMethod, s.ReadyPath, s.ReadyPos = "GET", "/", s.Pos
	}
	return s
}

func (l *planLoader) crash(v *yaml.Node) {
	c := &l.plan.Crash
	if v.Kind != yaml.MappingNode {
		l.errorf(v, "write crash: {delays: [20ms, 80ms]} or crash: {sweep: 3}", "crash must be a mapping")
		return
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		switch k.Value {
		case "delays":
			if val.Kind != yaml.SequenceNode {
				l.errorf(val, "write a list such as [20ms, 80ms]", "crash.delays must be a list of durations")
				continue
			}
			for _, d := range val.Content {
				c.Delays = append(c.Delays, l.duration(d, "crash.delays"))
			}
		case "sweep":
			n, err := strconv.Atoi(val.Value)
			if val.Kind != yaml.ScalarNode || err != nil || n < 0 || n > 20 {
				l.errorf(val, "use a number from 0 (no delay kills) to 20", "crash.sweep must be a whole number from 0 to 20, not %q", val.Value)
			}
			c.Sweep = n
		case "provider_keys":
			if val.Value != "true" && val.Value != "false" {
				l.errorf(val, "write true (the provider deduplicates by Idempotency-Key) or false (every request is an effect)", "crash.provider_keys must be true or false, not %q", val.Value)
			}
			c.Unkeyed = val.Value == "false"
		default:
			l.errorf(k, "crash takes delays, sweep and provider_keys", "unknown key %q in crash", k.Value)
		}
	}
}

// CheckBaseURL accepts an absolute http(s) URL.
func CheckBaseURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return err
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an absolute http:// or https:// URL", s)
	}
	return nil
}

// incrementFirstNumber returns body with its first number (in document
// order) increased by one, or nil when the body holds no number.
func incrementFirstNumber(body []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	for {
		off := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		if n, ok := tok.(json.Number); ok {
			end := dec.InputOffset()
			start := off + int64(bytes.Index(body[off:end], []byte(n.String())))
			var repl string
			if i, err := n.Int64(); err == nil && i < math.MaxInt64 {
				repl = strconv.FormatInt(i+1, 10)
			} else if f, err := n.Float64(); err == nil {
				repl = strconv.FormatFloat(f+1, 'g', -1, 64)
			} else {
				return nil
			}
			out := append([]byte{}, body[:start]...)
			out = append(out, repl...)
			return append(out, body[start+int64(len(n.String())):]...)
		}
	}
}
