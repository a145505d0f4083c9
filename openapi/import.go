package openapi

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/retryspec/retryspec/contract"
)

// ProposedEndpoint is one spec operation as `init --openapi` proposes to
// classify it. The effect and key are guesses from the method and the path
// shape; every one is marked for review in the written contract.
type ProposedEndpoint struct {
	Operation string // "POST /v1/things", the contract's spelling
	Effect    string
	Key       string // required | optional | none
	// Reason says why this effect was proposed, for the reviewer.
	Reason string
	// Summary is the spec's summary or operationId, shortened.
	Summary string
	// Line is the operation's line in the spec.
	Line int
	// Skip, when set, says why the operation cannot be listed in a
	// contract as it is (a method or path the contract grammar refuses).
	Skip string
}

// Import proposes an endpoint entry for every operation of the spec, in
// document order.
func Import(s *Spec) []ProposedEndpoint {
	var out []ProposedEndpoint
	for _, op := range s.Operations() {
		p := propose(op)
		if _, _, err := contract.ParseOperation(p.Operation); err != nil {
			p.Skip = err.Error()
		}
		p.Summary = shorten(firstNonEmpty(scalar(mapGet(op.node, "summary")), scalar(mapGet(op.node, "operationId"))), 200)
		out = append(out, p)
	}
	return out
}

// propose guesses an operation's effect from its method and path shape.
// POST is the ambiguous one: on a collection it creates, on an item
// (Stripe, Twilio) it updates, after an item it is an action.
func propose(op Operation) ProposedEndpoint {
	p := ProposedEndpoint{Operation: op.Method + " " + op.Path, Line: op.Line}
	segs := strings.Split(strings.Trim(op.Path, "/"), "/")
	lastIsParam := len(segs) > 0 && strings.HasPrefix(segs[len(segs)-1], "{")
	hasParam := strings.Contains(op.Path, "{")
	switch op.Method {
	case "GET", "HEAD", "OPTIONS":
		p.Effect, p.Key, p.Reason = "read", "none", op.Method+" reads"
	case "PUT":
		p.Effect, p.Key, p.Reason = "replace", "none", "PUT replaces the resource; check it does not append or count"
	case "PATCH":
		p.Effect, p.Key, p.Reason = "replace", "optional", "PATCH updates fields; a key guards updates that are not plain sets"
	case "DELETE":
		p.Effect, p.Key, p.Reason = "delete", "none", "DELETE removes the resource; check it has no other side effect"
	case "POST":
		switch {
		case lastIsParam:
			p.Effect, p.Key, p.Reason = "replace", "optional", "POST on an item usually updates it"
		case hasParam:
			p.Effect, p.Key, p.Reason = "action", "required", "POST after an item usually runs an action on it"
		default:
			p.Effect, p.Key, p.Reason = "create", "required", "POST on a collection creates a resource"
		}
	default:
		p.Effect, p.Key, p.Reason = "action", "none", op.Method+" is unusual for an API"
	}
	return p
}

// EndpointsYAML writes the proposals as the contract's endpoints section,
// each entry carrying a review comment with the reason and the spec line.
func EndpointsYAML(eps []ProposedEndpoint, specName string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Imported from %s: every effect and key below is a proposal from the\n", specName)
	b.WriteString("# method and path shape. Review each one, then delete its review comment.\n")
	b.WriteString("endpoints:\n")
	n := 0
	for _, e := range eps {
		if e.Skip != "" {
			fmt.Fprintf(&b, "  # skipped %s (%s line %d): %s\n", oneLine(e.Operation), specName, e.Line, oneLine(e.Skip))
			continue
		}
		n++
		fmt.Fprintf(&b, "  - operation: %s   # review: %s (%s line %d)\n", strconv.Quote(e.Operation), oneLine(e.Reason), specName, e.Line)
		fmt.Fprintf(&b, "    effect: %s\n", e.Effect)
		fmt.Fprintf(&b, "    key: %s\n", e.Key)
		if e.Summary != "" {
			fmt.Fprintf(&b, "    summary: %s\n", strconv.Quote(e.Summary))
		}
	}
	if n == 0 {
		b.Reset()
		b.WriteString("endpoints: []   # the spec has no operations a contract can list\n")
	}
	return b.Bytes()
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}

// shorten keeps the first line of s, at most n characters, printable only.
func shorten(s string, n int) string {
	s = oneLine(s)
	if r := []rune(s); len(r) > n {
		s = strings.TrimSpace(string(r[:n-1])) + "…"
	}
	return s
}

func oneLine(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == 0x2028 || r == 0x2029 {
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}
