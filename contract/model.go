package contract

import (
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"
)

// Pos is a 1-based line and column in the contract file.
type Pos struct {
	Line   int `json:"line"`
	Column int `json:"column"`
}

// IsZero reports whether p is unknown.
func (p Pos) IsZero() bool { return p.Line == 0 }

// Contract is the loaded, validated and defaulted retryspec.yaml. It is the
// one model every other package reads: rules, renderers, snippets, openapi,
// copy and diff. Values that were omitted carry their defaults; Has tells
// whether the user wrote a value, and PosOf where.
type Contract struct {
	// File is the path the contract was loaded from, as given.
	File string
	// Source is the raw file content, for carets in text output.
	Source []byte

	Version     int
	API         API
	Idempotency Idempotency
	Endpoints   []Endpoint
	Retry       Retry
	// SDK is nil when the contract has no sdk section: the SDK page is moot.
	SDK  *SDK
	Docs Docs
	Lint Lint
	// Changes are acknowledged breaking changes (see `retryspec diff`).
	Changes []Change

	// doc finds positions on demand: findings are few and values many.
	doc *document
}

// document is the YAML node tree behind a contract's positions. It is parsed
// again from the source the first time a position is asked for, not kept
// from the load: the tree costs about 1 KB per endpoint, which a
// 50,000-endpoint contract would otherwise hold through a whole build.
// A pointer, so copies of a Contract share one tree.
type document struct {
	source []byte
	once   sync.Once
	root   *yaml.Node
}

func (d *document) tree() *yaml.Node {
	if d == nil {
		return nil
	}
	d.once.Do(func() {
		var doc yaml.Node
		// The source was parsed once already, so it cannot fail now.
		if yaml.Unmarshal(d.source, &doc) == nil && len(doc.Content) > 0 {
			d.root = doc.Content[0]
		}
	})
	return d.root
}

// API names the API the contract describes.
type API struct {
	Name    string
	BaseURL string
	// ErrorBody is where the API's error responses carry their code; the
	// zero value when the contract does not say (errorbody.go).
	ErrorBody ErrorBody
}

// Idempotency is the server half: how keys are sent, claimed, stored and replayed.
type Idempotency struct {
	// KeyIn is where the key travels: the Header (the default) or the JSON
	// body member at KeyField (keyplace.go).
	KeyIn    KeyIn
	KeyField []string // key_field's tokens; nil unless KeyIn is body
	// GraphQL is where a GraphQL API takes the key and reports conflicts;
	// zero unless KeyIn is graphql (graphql.go).
	GraphQL      GraphQL
	Header       string // RFC 9110 token, default Idempotency-Key
	HeaderValue  HeaderValue
	ReplayHeader string // optional; "" when absent
	KeySource    KeySource
	MaxKeyLength int
	Scope        KeyScope
	Derivation   []Derivation
	Fingerprint  Fingerprint
	// FingerprintHeaders are request headers that are part of "the same
	// request" (an API version header, as Whop counts it), in file order.
	FingerprintHeaders []string
	// FingerprintFields narrows a JSON body's part of the fingerprint to
	// named members, or leaves named members out; zero when absent.
	FingerprintFields FingerprintFields
	Claim             Claim
	InFlight          *InFlight // nil when absent: binary seen/not-seen keys
	Conflicts         Conflicts
	StoredFailures    FailurePolicy // "" when undecided
	// StoredOutcomes is "" when absent; Outcomes says what is stored then.
	StoredOutcomes StoredOutcomes
	StoredResponse StoredResponse
	ReplayWindow   Duration
	ReaperAfter    Duration // zero when absent
	// LongestRetryChain is zero when the contract does not state it.
	LongestRetryChain RetryChain
	AfterWindow       AfterWindow
	Recovery          Recovery
	// FirstSent is a window measured from the client's first-sent time
	// (OASIS Repeatable Requests, as Azure); zero when absent.
	FirstSent FirstSent
	// ResultHeader is the response header that reports whether the server
	// accepted or rejected a keyed request; zero when absent.
	ResultHeader ResultHeader
}

// FingerprintFields are JSON pointers (RFC 6901, object members only, such
// as /metadata/trace_id) into a JSON request body: fingerprint_fields'
// exclude leaves those members out of "the same request"; its only counts
// those members and no other part of the body (Only set).
type FingerprintFields struct {
	Members []string
	Only    bool
}

// Set reports whether the contract names body fields at all.
func (f FingerprintFields) Set() bool { return len(f.Members) > 0 }

// Derivation is one ranked way for integrators to mint keys.
type Derivation struct {
	Kind    DerivationKind
	Example string
}

// Claim is how the server claims a key atomically.
type Claim struct {
	Store         Store
	Mechanism     Mechanism
	FencingTokens bool
	// SameTransaction is true when the key's record commits atomically with
	// the endpoint's writes, phase by phase, as the middleware does: the
	// claim alone in its own statement (no effect yet, so a crash after it
	// leaves a key that has reached no recovery point, which a retry runs
	// from the start); each phase's writes in one transaction with its
	// fenced recovery point; the last phase's writes with the stored
	// response. It needs one store, with transactions, holding the key's
	// record and the rows (claim/cross-store-transaction,
	// claim/same-transaction-without-transactions).
	SameTransaction bool
	// DataStore is where the endpoints' own rows live, "" when the contract
	// does not say (then they are taken to live beside the claim). A claim
	// can only share a transaction with data in its own store.
	DataStore Store
}

// InFlight is what a request that hits a claimed, unfinished key gets.
type InFlight struct {
	Response    InFlightMode // "" when missing
	LockTimeout Duration
	Takeover    Takeover
}

// Conflict is one documented error response.
type Conflict struct {
	Status int
	// Code is the machine-readable code, "" when the contract says the
	// API answers this conflict by status only (`code: none`).
	Code string
	// Message is the human-readable text the contract states, "" for the
	// default text (Contract.Reply).
	Message string
}

// Conflicts holds the idempotency error responses.
type Conflicts struct {
	PayloadMismatch Conflict
	InFlight        Conflict
	MissingKey      Conflict
	// InvalidKey answers a key that is too long or not in the header's form.
	InvalidKey Conflict
	// Expired answers a key reused after the window under after_window: error.
	Expired Conflict
	// TooOld answers a request whose first-sent time is older than the
	// first-sent window; only a contract with first_sent uses it.
	TooOld Conflict
}

// NamedConflict is one conflict with its name in the contract file.
type NamedConflict struct {
	Name string // payload_mismatch, in_flight, ...
	Conflict
}

// All lists the conflicts in the file's order, for the outputs that treat
// them alike (diff, the OpenAPI extension, copy).
func (cs Conflicts) All() []NamedConflict {
	return []NamedConflict{
		{"payload_mismatch", cs.PayloadMismatch}, {"in_flight", cs.InFlight}, {"missing_key", cs.MissingKey},
		{"invalid_key", cs.InvalidKey}, {"expired", cs.Expired}, {"too_old", cs.TooOld},
	}
}

// RetryChain is the longest time a caller may still retry one intent.
type RetryChain struct {
	Duration Duration
	Because  string
}

// Recovery says which background jobs finish or clean up abandoned keys.
type Recovery struct {
	Completer bool
	Reaper    bool
}

// Endpoint classifies one operation of the API.
type Endpoint struct {
	// Operation is "METHOD /path" as written; for a GraphQL mutation,
	// "mutation NAME", with Method POST and Path idempotency.graphql.path.
	Operation string
	// Mutation is the GraphQL mutation field's name (key_in: graphql); ""
	// for an HTTP operation.
	Mutation string
	Method   string // upper case
	Path     string
	Effect   Effect
	Key      KeyMode
	// UnsafeToRetry is the documented warning for an endpoint without a key.
	UnsafeToRetry     string
	ExternalCalls     []string
	RecoveryPoints    []string
	SingleTransaction bool
	Summary           string
	// ExternalCallsStated is set when the contract answers external_calls,
	// even with an empty list: a missing answer is not "none".
	ExternalCallsStated bool
	// MaxDuration is the longest the handler may run, external calls
	// included; zero when the contract does not state it.
	MaxDuration Duration
	// Unreviewed is set by `reviewed: false`: the effect is a proposal
	// (init --openapi) that a person has not yet confirmed.
	Unreviewed bool
	// Example is the request the docs and snippets show (example:); nil
	// when the contract states none.
	Example *ExampleRequest
	// MaxKeyLength is this endpoint's own bound on the key, 0 when it
	// takes idempotency.max_key_length (Contract.MaxKeyLengthFor).
	MaxKeyLength int
}

// Keyed reports whether the endpoint accepts an idempotency key.
func (e Endpoint) Keyed() bool { return e.Key == KeyRequired || e.Key == KeyOptional }

// NaturallyIdempotent reports whether the effect is idempotent by itself:
// repeating it leaves the same state.
func (e Endpoint) NaturallyIdempotent() bool {
	switch e.Effect {
	case EffectRead, EffectReplace, EffectDelete:
		return true
	}
	return false
}

// StatusSpec is one entry of retry.statuses: a code (503) or a class (5XX).
type StatusSpec struct {
	Code  int  // 503, or the class digit (5) when Class is true
	Class bool // 5XX
}

// Matches reports whether status falls under s.
func (s StatusSpec) Matches(status int) bool {
	if s.Class {
		return status/100 == s.Code
	}
	return status == s.Code
}

func (s StatusSpec) String() string {
	if s.Class {
		return string(rune('0'+s.Code)) + "XX"
	}
	return strconv.Itoa(s.Code)
}

// Retry is the client half: which failures to retry and how.
type Retry struct {
	// AnyStatus is true for `statuses: any`: retry on every error.
	AnyStatus         bool
	Statuses          []StatusSpec
	CautiousStatuses  []int
	ConnectionErrors  []string // timeout | reset | refused
	HonorRetryAfter   bool
	Backoff           Backoff
	MaxAttempts       int
	MaxElapsed        Duration // zero when absent
	AttemptTimeout    AttemptTimeout
	Deadline          Deadline
	PropagateDeadline bool
	LogRetries        bool
	Budget            *Budget // nil when absent
	Stacking          []string
	// Fleet is the number of client instances that share the API, 0 when
	// the contract does not say: it sets the amplification figure.
	Fleet int

	// omitted: the contract has no retry section (DefaultRetry applies);
	// timeoutDefaulted: it states no attempt_timeout. Kept here rather
	// than asked of the YAML tree, which rules would otherwise parse again
	// on every check.
	omitted, timeoutDefaulted bool
}

// Omitted reports whether the contract has no retry section at all.
func (r Retry) Omitted() bool { return r.omitted }

// AttemptTimeoutDefaulted reports whether attempt_timeout was left out, so
// AttemptTimeout holds DefaultAttemptTimeout's figure.
func (r Retry) AttemptTimeoutDefaulted() bool { return r.timeoutDefaulted }

// RetriesStatus reports whether status is retried (normally or cautiously).
func (r Retry) RetriesStatus(status int) bool {
	if r.AnyStatus {
		return true
	}
	for _, s := range r.Statuses {
		if s.Matches(status) {
			return true
		}
	}
	for _, c := range r.CautiousStatuses {
		if c == status {
			return true
		}
	}
	return false
}

// RetriesConnectionError reports whether the named connection error is retried.
func (r Retry) RetriesConnectionError(kind string) bool {
	for _, c := range r.ConnectionErrors {
		if c == kind {
			return true
		}
	}
	return false
}

// Backoff is the delay schedule between attempts.
type Backoff struct {
	Jitter     Jitter
	Base       Duration
	Cap        Duration
	Multiplier float64
	Because    string
	// jitterUnstated is set when a written backoff leaves jitter out.
	jitterUnstated bool
}

// JitterUnstated reports whether a written backoff leaves jitter out:
// Jitter then holds the default (full), which nobody chose, and
// retry/jitter-unstated asks for the choice. Not part of the contract's
// meaning, so diff does not compare it.
func (b Backoff) JitterUnstated() bool { return b.jitterUnstated }

// AttemptTimeout is the per-attempt timeout: factor x measured p99, or a bare duration.
type AttemptTimeout struct {
	P99    Duration
	Factor float64
	// Bare is set when the contract gives a plain duration instead of p99 x factor.
	// When the contract omits attempt_timeout, Bare holds
	// DefaultAttemptTimeout's figure, the one docs and snippets use;
	// Retry.AttemptTimeoutDefaulted tells the two apart.
	Bare Duration
}

// Value is the effective per-attempt timeout.
func (a AttemptTimeout) Value() Duration {
	if !a.Bare.IsZero() {
		return a.Bare
	}
	return Duration{D: time.Duration(float64(a.P99.D) * a.Factor)}
}

// Budget is a fleet-wide retry budget.
type Budget struct {
	Kind          BudgetKind
	Capacity      int
	TransientCost int
	ThrottleCost  int
	SuccessRefund int
}

// SDK describes the SDKs the API team ships.
type SDK struct {
	Languages          []string
	Retries            OnOff
	AutoIdempotencyKey bool
}

// Docs configures rendering and the copy linter.
type Docs struct {
	Out  string
	Copy CopyConfig
}

// CopyConfig configures `retryspec copy`.
type CopyConfig struct {
	Include []string
	Allow   []CopyAllow
	// LintCode makes fenced and inline code count as copy.
	LintCode bool
}

// CopyAllow suppresses one copy rule on the files matching Path.
type CopyAllow struct {
	Path    string
	Rule    string
	Because string
	Pos     Pos
}

// Lint configures the contract linter.
type Lint struct {
	Waive []Waiver
}

// Waiver silences one rule, with a reason; waived findings stay visible.
type Waiver struct {
	Rule    string
	Path    string // optional: only findings at this path (prefix)
	Because string
	Pos     Pos
}

// Change acknowledges one breaking change, so `diff` lets it through.
type Change struct {
	Field   string
	Because string
	Pos     Pos
}

// Has reports whether the user wrote a value at path (as opposed to a default).
// Paths are dotted with list indexes: "idempotency.replay_window",
// "endpoints[2].key", "retry.statuses[1]".
func (c *Contract) Has(path string) bool {
	_, exact := c.locate(path)
	return exact
}

// PosOf returns the position of the value at path, or of its nearest written
// ancestor when the value itself was omitted (so a finding about a missing
// field points at the section that lacks it). A scalar value's position is
// the value's; a section's (mapping or list) is its key's; a list item's is
// the item's.
func (c *Contract) PosOf(path string) Pos {
	p, _ := c.locate(path)
	return p
}

// locate walks path through the document. It returns the position of the
// deepest value found and whether the whole path was found.
func (c *Contract) locate(path string) (Pos, bool) {
	best := Pos{Line: 1, Column: 1}
	root := c.doc.tree()
	if root == nil || path == "" {
		return best, false
	}
	n := unalias(root)
	for rest := path; rest != ""; {
		if rest[0] == '[' {
			j := strings.IndexByte(rest, ']')
			if j < 0 {
				return best, false
			}
			i, err := strconv.Atoi(rest[1:j])
			if err != nil || n.Kind != yaml.SequenceNode || i < 0 || i >= len(n.Content) {
				return best, false
			}
			n = unalias(n.Content[i])
			best = Pos{Line: n.Line, Column: n.Column}
			rest = strings.TrimPrefix(rest[j+1:], ".")
			continue
		}
		end := strings.IndexAny(rest, ".[")
		key := rest
		if end >= 0 {
			key, rest = rest[:end], strings.TrimPrefix(rest[end:], ".")
		} else {
			rest = ""
		}
		if n.Kind != yaml.MappingNode {
			return best, false
		}
		found := false
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := unalias(n.Content[i]); k.Value == key {
				v := unalias(n.Content[i+1])
				if v.Kind == yaml.ScalarNode {
					best = Pos{Line: v.Line, Column: v.Column}
				} else {
					best = Pos{Line: k.Line, Column: k.Column}
				}
				n, found = v, true
				break
			}
		}
		if !found {
			return best, false
		}
	}
	return best, true
}

func unalias(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// Paths lists every written path in source order, for tools (diff, schema tests).
func (c *Contract) Paths() []string {
	type entry struct {
		path string
		pos  Pos
	}
	var all []entry
	var walk func(n *yaml.Node, path string, depth int)
	walk = func(n *yaml.Node, path string, depth int) {
		n = unalias(n)
		if n == nil || depth > maxDepth {
			return
		}
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := unalias(n.Content[i]), unalias(n.Content[i+1])
				p := k.Value
				if path != "" {
					p = path + "." + k.Value
				}
				pos := Pos{Line: k.Line, Column: k.Column}
				if v.Kind == yaml.ScalarNode {
					pos = Pos{Line: v.Line, Column: v.Column}
				}
				all = append(all, entry{p, pos})
				walk(v, p, depth+1)
			}
		case yaml.SequenceNode:
			for i, item := range n.Content {
				item = unalias(item)
				p := path + "[" + strconv.Itoa(i) + "]"
				all = append(all, entry{p, Pos{Line: item.Line, Column: item.Column}})
				walk(item, p, depth+1)
			}
		}
	}
	walk(c.doc.tree(), "", 0)
	sort.SliceStable(all, func(i, j int) bool {
		a, b := all[i].pos, all[j].pos
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Column != b.Column {
			return a.Column < b.Column
		}
		return all[i].path < all[j].path
	})
	out := make([]string, len(all))
	for i, e := range all {
		out[i] = e.path
	}
	return out
}

// SourceLine returns line n (1-based) of the source without its newline.
func (c *Contract) SourceLine(n int) string {
	return sourceLine(c.Source, n)
}

func sourceLine(src []byte, n int) string {
	if n < 1 {
		return ""
	}
	s := string(src)
	for i := 1; i < n; i++ {
		j := strings.IndexByte(s, '\n')
		if j < 0 {
			return ""
		}
		s = s[j+1:]
	}
	if j := strings.IndexByte(s, '\n'); j >= 0 {
		s = s[:j]
	}
	return strings.TrimSuffix(s, "\r")
}

// KeyedEndpoints returns the endpoints that accept a key, in contract order.
func (c *Contract) KeyedEndpoints() []Endpoint {
	var out []Endpoint
	for _, e := range c.Endpoints {
		if e.Keyed() {
			out = append(out, e)
		}
	}
	return out
}

// FirstRequiredKeyEndpoint is the endpoint snippets call: the first with key: required,
// else the first keyed one. ok is false when no endpoint takes a key.
func (c *Contract) FirstRequiredKeyEndpoint() (Endpoint, bool) {
	for _, e := range c.Endpoints {
		if e.Key == KeyRequired {
			return e, true
		}
	}
	for _, e := range c.Endpoints {
		if e.Keyed() {
			return e, true
		}
	}
	return Endpoint{}, false
}
