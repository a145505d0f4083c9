package openapi

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/contract/rules"
	"github.com/retryspec/retryspec/findings"
	"go.yaml.in/yaml/v3"
)

// RuleContradiction is the finding for something the spec already declares
// that disagrees with the contract (another header name, another maxLength).
const RuleContradiction = rules.OpenAPIContradicts

// Edit adds one member to a mapping of the spec (Key set) or appends one
// item to a sequence (Key empty). Every change retryspec makes is an Edit:
// the overlay and the merged spec are two renderings of the same list.
type Edit struct {
	// Target is the key path from the document root to the collection.
	Target []string
	Key    string
	Value  any
	node   *yaml.Node
	// site, when set, is where the edit's path enters a node that YAML
	// aliases share: the merged spec makes the edit on a copy there
	// (anchors.go), the overlay leaves it out.
	site *site
}

// Note reports something the spec already has and that is reused as it
// is, or an addition that was left out, with the reason.
type Note struct {
	Operation string // "POST /v1/x", or "" for the document root
	// File is where Line is: the spec, or the contract for an endpoint
	// the spec lacks.
	File    string
	Line    int
	Message string
}

// Plan is everything retryspec would add to one spec for one contract.
type Plan struct {
	Edits []Edit
	// Reused lists what the spec already declares (nothing is duplicated).
	Reused []Note
	// Skipped lists additions left out, and contract endpoints the spec lacks.
	Skipped []Note
	// Findings are contradictions between the spec and the contract.
	Findings []findings.Finding
	// Keyed and Unsafe count the operations that gained x-idempotency.
	Keyed, Unsafe int
}

// NewPlan works out what the contract adds to the spec.
func NewPlan(c *contract.Contract, s *Spec) *Plan {
	p := &Plan{}
	b := &planner{c: c, s: s, p: p, sharedNoted: map[*yaml.Node]bool{}}
	b.root()
	b.errorRef = b.errorSchemaRef()
	ops := index(s.Operations())
	b.countSharedResponses(ops)
	for i, e := range c.Endpoints {
		if e.Mutation != "" {
			// A GraphQL API has one HTTP operation for all its mutations,
			// and OpenAPI has no operation per mutation to carry the key
			// or the conflicts: inventing one would describe an API that
			// does not exist. x-retry at the top still applies to the POST.
			p.Skipped = append(p.Skipped, Note{Operation: e.Operation, File: c.File, Line: c.PosOf(fmt.Sprintf("endpoints[%d].mutation", i)).Line,
				Message: "a GraphQL mutation: OpenAPI has no operation per mutation, and the key travels inside the GraphQL document; nothing added for it (the docs pages describe it)"})
			continue
		}
		if e.Method == contract.MethodQuery {
			// Never keyed (the loader refuses a key), and OpenAPI 3.0 and
			// 3.1 have no query operation to describe it on: x-retry at
			// the top is all that applies to it.
			p.Skipped = append(p.Skipped, Note{Operation: e.Operation, File: c.File, Line: c.PosOf(fmt.Sprintf("endpoints[%d].operation", i)).Line,
				Message: "a QUERY: OpenAPI 3.0 and 3.1 have no query operation, and a QUERY is safe and takes no key; nothing added for it"})
			continue
		}
		op, ok := ops[shape(e.Method, e.Path)]
		if !ok {
			if e.Keyed() || e.UnsafeToRetry != "" {
				p.Skipped = append(p.Skipped, Note{Operation: e.Operation, File: c.File, Line: c.PosOf(fmt.Sprintf("endpoints[%d].operation", i)).Line,
					Message: "not in the spec; nothing added for it"})
			}
			continue
		}
		switch {
		case e.Keyed():
			b.keyed(e, op)
			p.Keyed++
		case e.UnsafeToRetry != "":
			b.unsafe(e, op)
			p.Unsafe++
		}
	}
	return p
}

type planner struct {
	c *contract.Contract
	s *Spec
	p *Plan
	// sharedUsers counts, per shared success response ($ref), the
	// operations using it, and keyedUsers those the contract keys.
	sharedUsers, keyedUsers map[string]int
	// sharedDone marks shared responses already given the replay header.
	sharedDone map[string]bool
	// anchors knows the nodes YAML aliases repeat (anchors.go), and
	// sharedNoted the sites already named in a note.
	anchors     *anchorIndex
	sharedNoted map[*yaml.Node]bool
	lineIndex   []int
	// errorRef is api.error_body.schema_ref once the spec is known to
	// define it, "" otherwise (errorbody.go).
	errorRef string
	// bodyKeyDone marks shared request schemas already given the key
	// property (bodykey.go).
	bodyKeyDone map[string]bool
}

func (b *planner) add(target []string, node *yaml.Node, key string, v any) {
	st, ok := b.editable(target, node, key)
	if !ok {
		return
	}
	b.p.Edits = append(b.p.Edits, Edit{Target: append([]string(nil), target...), Key: key, Value: v, node: node, site: st})
}

func (b *planner) reused(op string, n *yaml.Node, format string, args ...any) {
	b.p.Reused = append(b.p.Reused, Note{Operation: op, File: b.s.Path, Line: lineOf(n), Message: fmt.Sprintf(format, args...)})
}

func (b *planner) skipped(op string, n *yaml.Node, format string, args ...any) {
	b.p.Skipped = append(b.p.Skipped, Note{Operation: op, File: b.s.Path, Line: lineOf(n), Message: fmt.Sprintf(format, args...)})
}

func (b *planner) contradiction(n *yaml.Node, path, fix, format string, args ...any) {
	b.p.Findings = append(b.p.Findings, findings.Finding{
		Rule: RuleContradiction, Severity: severityOf(RuleContradiction), Message: fmt.Sprintf(format, args...),
		File: b.s.Path, Line: lineOf(n), Column: colOf(n), Path: path, Fix: fix,
	})
}

func lineOf(n *yaml.Node) int {
	if n == nil {
		return 0
	}
	return n.Line
}

func colOf(n *yaml.Node) int {
	if n == nil {
		return 0
	}
	return n.Column
}

// root adds x-retry and x-speakeasy-retries to the document.
func (b *planner) root() {
	for _, ext := range []struct {
		key string
		v   any
	}{{"x-retry", RetryExtension(b.c)}, {"x-speakeasy-retries", SpeakeasyRetries(b.c)}} {
		if k := mapKey(b.s.Root, ext.key); k != nil {
			b.reused("", k, "%s is already declared; left as it is", ext.key)
			continue
		}
		b.add(nil, b.s.Root, ext.key, ext.v)
	}
}

func (b *planner) opTarget(op Operation) []string {
	return []string{"paths", op.Path, strings.ToLower(op.Method)}
}

// unsafe marks an operation the contract documents as unsafe to retry.
func (b *planner) unsafe(e contract.Endpoint, op Operation) {
	if k := mapKey(op.node, "x-idempotency"); k != nil {
		b.reused(e.Operation, k, "x-idempotency is already declared; left as it is")
		return
	}
	b.add(b.opTarget(op), op.node, "x-idempotency", obj("safe-to-retry", false, "reason", e.UnsafeToRetry))
}

// keyed adds the header, the conflict responses, the replay header and
// x-idempotency to one operation that takes a key.
func (b *planner) keyed(e contract.Endpoint, op Operation) {
	id := b.c.Idempotency
	t := b.opTarget(op)

	// The header parameter, unless the operation or its path item already
	// declares it (reused, or a contradiction: existingHeader reports which);
	// a key that travels in the body is a property of the request schema.
	var params []any
	if id.InBody() {
		b.bodyKey(e, op)
	} else if !b.existingHeader(e, op) {
		params = append(params, HeaderParameter(b.c, e))
	}
	if fs, ok := b.firstSentParameter(e, op); ok {
		params = append(params, fs)
	}
	if list := deref(mapGet(op.node, "parameters")); list != nil && list.Kind == yaml.SequenceNode {
		for _, p := range params {
			b.add(append(t, "parameters"), list, "", p)
		}
	} else if len(params) > 0 {
		b.add(t, op.node, "parameters", params)
	}

	// Conflict responses, grouped by status (409 for both is common).
	responses := deref(mapGet(op.node, "responses"))
	var missing Obj
	for _, g := range conflictGroups(b.c, e) {
		code := strconv.Itoa(g.status)
		if k := mapKey(responses, code); k != nil {
			b.reused(e.Operation, k, "response %s is already declared; left as it is (document %s in it)", code, strings.Join(g.names(), ", "))
			continue
		}
		missing = append(missing, KV{K: code, V: conflictResponse(b.c, g, b.errorRef)})
	}
	if responses != nil && responses.Kind == yaml.MappingNode {
		for _, kv := range missing {
			b.add(append(t, "responses"), responses, kv.K, kv.V)
		}
	} else if len(missing) > 0 {
		b.add(t, op.node, "responses", missing)
	}

	// The replay header and the result header on every success response.
	if (id.ReplayHeader != "" || id.ResultHeader.Set()) && responses != nil && responses.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(responses.Content); i += 2 {
			k, v := responses.Content[i], responses.Content[i+1]
			if !strings.HasPrefix(k.Value, "2") {
				continue
			}
			var decls Obj
			if id.ReplayHeader != "" {
				decls = append(decls, KV{id.ReplayHeader, ReplayHeader(b.c)})
			}
			if rh := id.ResultHeader; rh.Set() {
				decls = append(decls, KV{rh.Name, ResultHeader(b.c, rh.Accepted)})
			}
			b.responseHeaders(e, append(t, "responses", k.Value), k, deref(v), decls)
		}
	}

	if k := mapKey(op.node, "x-idempotency"); k != nil {
		b.reused(e.Operation, k, "x-idempotency is already declared; left as it is")
	} else {
		b.add(t, op.node, "x-idempotency", IdempotencyExtension(b.c, e))
	}
}

// existingHeader looks for the key header among the operation's and its
// path item's parameters, inline or by $ref. It reports true when the spec
// already has it (reused, or contradicting: either way nothing is added).
func (b *planner) existingHeader(e contract.Endpoint, op Operation) bool {
	id := b.c.Idempotency
	for _, list := range []*yaml.Node{deref(mapGet(op.node, "parameters")), deref(mapGet(op.pathItem, "parameters"))} {
		if list == nil || list.Kind != yaml.SequenceNode {
			continue
		}
		for _, item := range list.Content {
			param, ref := b.s.resolveRef(deref(item))
			if param == nil || !strings.EqualFold(scalar(mapGet(param, "in")), "header") {
				continue
			}
			name := scalar(mapGet(param, "name"))
			via := "inline"
			if ref != "" {
				via = "through $ref " + ref
			}
			if !strings.EqualFold(name, id.Header) {
				if strings.Contains(strings.ToLower(name), "idempotency") {
					b.contradiction(item, "idempotency.header",
						fmt.Sprintf("rename the header to %s in the spec, or set idempotency.header: %s in the contract", id.Header, name),
						"%s declares the idempotency header as %s (%s) but the contract names it %s", e.Operation, name, via, id.Header)
					return true
				}
				continue
			}
			contradicts := false
			if schema, _ := b.s.resolveRef(mapGet(param, "schema")); schema != nil {
				if ml := mapGet(schema, "maxLength"); ml != nil {
					if n, err := strconv.Atoi(ml.Value); err == nil && n != b.c.MaxKeyLengthFor(e) {
						contradicts = true
						max := b.c.MaxKeyLengthFor(e)
						b.contradiction(ml, "idempotency.max_key_length",
							fmt.Sprintf("make maxLength %d in the spec, or set idempotency.max_key_length: %d in the contract", max, n),
							"%s: the spec's %s header allows %d characters but the contract's max_key_length is %d", e.Operation, name, n, max)
					}
				}
			}
			required := scalar(mapGet(param, "required")) == "true"
			if required != (e.Key == contract.KeyRequired) {
				contradicts = true
				want := "required: true"
				if e.Key != contract.KeyRequired {
					want = "required: false"
				}
				b.contradiction(item, fmt.Sprintf("endpoints[%d].key", b.endpointIndex(e)),
					fmt.Sprintf("set %s on the spec's parameter, or key: %s in the contract", want, map[bool]string{true: "required", false: "optional"}[required]),
					"%s: the spec's %s header has required: %v but the contract says key: %s", e.Operation, name, required, e.Key)
			}
			if !contradicts {
				b.reused(e.Operation, item, "header parameter %s is already declared (%s); reused", name, via)
			}
			return true
		}
	}
	return false
}

func (b *planner) endpointIndex(e contract.Endpoint) int {
	for i, x := range b.c.Endpoints {
		if x.Operation == e.Operation {
			return i
		}
	}
	return 0
}

// responseHeaders declares headers (the replay header, the result header)
// on one success response, in one edit each: a response without a headers
// map gets one map holding them all.
func (b *planner) responseHeaders(e contract.Endpoint, target []string, key, resp *yaml.Node, decls Obj) {
	r, ref := b.s.resolveRef(resp)
	if r == nil || r.Kind != yaml.MappingNode || len(decls) == 0 {
		return
	}
	headers := deref(mapGet(r, "headers"))
	var missing Obj
	for _, d := range decls {
		if k := headerKey(headers, d.K); k != nil {
			b.reused(e.Operation, k, "response %s already declares %s; reused", key.Value, d.K)
			continue
		}
		missing = append(missing, d)
	}
	if len(missing) == 0 {
		return
	}
	if ref != "" {
		// A shared response gets the headers only when every operation
		// using it is keyed: otherwise it would claim replays for
		// operations that never replay.
		if b.sharedUsers[ref] != b.keyedUsers[ref] {
			b.skipped(e.Operation, key, "response %s is the shared component %s, also used by %d operations without a key; %s not declared on it",
				key.Value, ref, b.sharedUsers[ref]-b.keyedUsers[ref], strings.Join(missing.keys(), ", "))
			return
		}
		if b.sharedDone[ref] {
			return
		}
		b.sharedDone[ref] = true
		target = refKeys(ref)
	}
	if headers != nil && headers.Kind == yaml.MappingNode {
		for _, d := range missing {
			b.add(append(target, "headers"), headers, d.K, d.V)
		}
	} else {
		b.add(target, r, "headers", missing)
	}
}

// headerKey finds a header, case-insensitively, in a response's headers map.
func headerKey(headers *yaml.Node, name string) *yaml.Node {
	if headers == nil || headers.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(headers.Content); i += 2 {
		if strings.EqualFold(headers.Content[i].Value, name) {
			return headers.Content[i]
		}
	}
	return nil
}

// countSharedResponses finds which shared success responses are used by
// which operations, keyed or not.
func (b *planner) countSharedResponses(ops map[string]Operation) {
	b.sharedUsers, b.keyedUsers, b.sharedDone = map[string]int{}, map[string]int{}, map[string]bool{}
	keyed := map[string]bool{}
	for _, e := range b.c.Endpoints {
		if e.Keyed() {
			keyed[shape(e.Method, e.Path)] = true
		}
	}
	for sh, op := range ops {
		responses := deref(mapGet(op.node, "responses"))
		if responses == nil || responses.Kind != yaml.MappingNode {
			continue
		}
		seen := map[string]bool{}
		for i := 0; i+1 < len(responses.Content); i += 2 {
			if !strings.HasPrefix(responses.Content[i].Value, "2") {
				continue
			}
			r := mapGet(deref(responses.Content[i+1]), "$ref")
			if r == nil || seen[r.Value] {
				continue
			}
			seen[r.Value] = true
			b.sharedUsers[r.Value]++
			if keyed[sh] {
				b.keyedUsers[r.Value]++
			}
		}
	}
}

// refKeys turns a local reference into the key path it names.
func refKeys(ref string) []string {
	var keys []string
	for _, tok := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		if u, err := unescapePointer(tok); err == nil {
			tok = u
		}
		keys = append(keys, tok)
	}
	return keys
}

func scalar(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return n.Value
}

// conflictGroup is the conflicts that share one status code.
type conflictGroup struct {
	status int
	kinds  []conflictKind
}

type conflictKind struct {
	name  string // payload_mismatch | in_flight | missing_key | invalid_key | expired | too_old
	c     contract.Conflict
	reply contract.ReplyKind
}

// codes lists the group's codes; a conflict answered by status only has none.
func (g conflictGroup) codes() []string {
	var out []string
	for _, k := range g.kinds {
		if k.c.Code != "" {
			out = append(out, k.c.Code)
		}
	}
	return out
}

// names lists the group's codes, or the conflicts' names where they have none.
func (g conflictGroup) names() []string {
	var out []string
	for _, k := range g.kinds {
		out = append(out, k.label())
	}
	return out
}

// label is the conflict's code, or its name when it has none.
func (k conflictKind) label() string {
	if k.c.Code != "" {
		return k.c.Code
	}
	return k.name
}

// conflictGroups lists the endpoint's idempotency error responses by
// status: the mismatch and in-flight conflicts always, the missing-key
// response when the key is required.
func conflictGroups(c *contract.Contract, e contract.Endpoint) []conflictGroup {
	cf := c.Idempotency.Conflicts
	inFlight := conflictKind{"in_flight", cf.InFlight, contract.ReplyInFlight}
	if in := c.Idempotency.InFlight; in != nil && in.Response == contract.InFlightAccepted {
		// A copy in flight gets the 202 contract.Reply renders (the
		// middleware's answer), never the in-flight conflict.
		rep := c.Reply(contract.ReplyInFlightAccepted)
		inFlight = conflictKind{"in_flight", contract.Conflict{Status: rep.Status, Code: rep.Code}, contract.ReplyInFlightAccepted}
	}
	kinds := []conflictKind{{"payload_mismatch", cf.PayloadMismatch, contract.ReplyPayloadMismatch}, inFlight}
	if e.Key == contract.KeyRequired {
		kinds = append(kinds, conflictKind{"missing_key", cf.MissingKey, contract.ReplyMissingKey})
	}
	kinds = append(kinds, conflictKind{"invalid_key", cf.InvalidKey, contract.ReplyInvalidKey})
	if c.Idempotency.AfterWindow == contract.AfterWindowError {
		kinds = append(kinds, conflictKind{"expired", cf.Expired, contract.ReplyExpired})
	}
	if c.Idempotency.FirstSent.Set() {
		kinds = append(kinds, conflictKind{"too_old", cf.TooOld, contract.ReplyTooOld})
	}
	var groups []conflictGroup
	for _, k := range kinds {
		if k.c.Status == 0 {
			continue
		}
		found := false
		for i := range groups {
			if groups[i].status == k.c.Status {
				groups[i].kinds = append(groups[i].kinds, k)
				found = true
			}
		}
		if !found {
			groups = append(groups, conflictGroup{status: k.c.Status, kinds: []conflictKind{k}})
		}
	}
	sort.SliceStable(groups, func(i, j int) bool { return groups[i].status < groups[j].status })
	return groups
}
