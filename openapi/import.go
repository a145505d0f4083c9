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

// propose guesses an operation's effect from its method and path shape,
// and says how sure the guess is ("sure", "likely", "a guess") at the start
// of the reason. POST is the ambiguous one: on a collection or a
// sub-collection (/accounts/{account}/bank_accounts) it creates, on an item
// (Stripe, Twilio) it usually updates, and a verb as the last segment
// (/domains/claim, /payments/{id}/cancels) is an action.
func propose(op Operation) ProposedEndpoint {
	p := ProposedEndpoint{Operation: op.Method + " " + op.Path, Line: op.Line}
	segs := strings.Split(strings.Trim(op.Path, "/"), "/")
	last := segs[len(segs)-1]
	lastIsParam := strings.HasPrefix(last, "{")
	hasParam := strings.Contains(op.Path, "{")
	set := func(effect, key, sure, reason string) {
		p.Effect, p.Key, p.Reason = effect, key, sure+": "+reason
	}
	switch op.Method {
	case "GET", "HEAD", "OPTIONS", contract.MethodQuery:
		set("read", "none", "sure", op.Method+" reads")
	case "PUT":
		set("replace", "none", "likely", "PUT replaces the resource; check it does not append or count")
	case "PATCH":
		set("replace", "optional", "likely", "PATCH updates fields; a key guards updates that are not plain sets")
	case "DELETE":
		set("delete", "none", "likely", "DELETE removes the resource; check it has no other side effect")
	case "POST":
		word := pathWord(last)
		switch {
		case lastIsParam:
			set("replace", "optional", "a guess", "POST on an item usually updates it; some APIs run an action there")
		case actionVerbs[word] || actionVerbs[strings.TrimSuffix(word, "s")]:
			set("action", "required", "likely", fmt.Sprintf("POST ending in the verb %q runs an action", last))
		case !hasParam && len(segs) == 1 || looksPlural(word) && !hasParam:
			set("create", "required", "likely", "POST on a collection creates a resource")
		case looksPlural(word):
			set("create", "required", "likely", fmt.Sprintf("POST on the sub-collection %q creates a resource in it", last))
		case hasParam:
			set("action", "required", "a guess", "POST after an item usually runs an action on it")
		default:
			set("create", "required", "a guess", "POST usually creates a resource")
		}
	default:
		set("action", "none", "a guess", op.Method+" is unusual for an API")
	}
	return p
}

// pathWord is a path segment as a lower-case word: "bank_accounts",
// "claim", "send-test" -> "send_test"; the file extension some APIs add
// (Twilio's Addresses.json) is dropped.
func pathWord(seg string) string {
	seg = strings.ToLower(seg)
	if i := strings.LastIndexByte(seg, '.'); i > 0 {
		seg = seg[:i]
	}
	return strings.ReplaceAll(seg, "-", "_")
}

// looksPlural reports a collection name: a plural noun ("refunds",
// "bank_accounts", "addresses"), not a verb.
func looksPlural(word string) bool {
	return strings.HasSuffix(word, "s") && !strings.HasSuffix(word, "ss") && !actionVerbs[word]
}

// actionVerbs are last path segments that name an action on the resource
// before them, as the large public APIs spell them (Stripe's /cancel,
// /capture, /confirm; Resend's /domains/claim, /verify, /send; Adyen's
// /cancels, /refunds on a payment are nouns and stay sub-collections).
var actionVerbs = map[string]bool{
	"accept": true, "activate": true, "apply": true, "approve": true, "archive": true, "attach": true,
	"authorize": true, "cancel": true, "capture": true, "claim": true, "close": true, "complete": true,
	"confirm": true, "deactivate": true, "decline": true, "detach": true, "disable": true, "duplicate": true,
	"enable": true, "expire": true, "finalize": true, "invalidate": true, "lock": true, "mark_uncollectible": true,
	"merge": true, "pause": true, "pay": true, "process": true, "publish": true, "reactivate": true,
	"reject": true, "reopen": true, "resend": true, "reset": true, "restore": true, "resume": true,
	"retry": true, "reverse": true, "revoke": true, "rotate": true, "run": true, "send": true, "start": true,
	"stop": true, "submit": true, "suspend": true, "test": true, "transfer": true, "unlock": true,
	"unpublish": true, "validate": true, "verify": true, "void": true,
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

// Unclassified proposes an entry for every state-changing operation of the
// spec that the contract's endpoints do not classify: the operations
// endpoint/unclassified reports, in spec order, matched by path shape as
// Drift matches them. It is what `init --openapi --update` appends.
func Unclassified(c *contract.Contract, s *Spec) []ProposedEndpoint {
	classified := make(map[string]bool, len(c.Endpoints))
	for _, e := range c.Endpoints {
		classified[shape(e.Method, e.Path)] = true
	}
	var out []ProposedEndpoint
	for _, p := range Import(s) {
		method, path, _ := strings.Cut(p.Operation, " ")
		if !stateChanging[method] || classified[shape(method, path)] {
			continue
		}
		// Two spellings of one path in the spec are one entry.
		classified[shape(method, path)] = true
		out = append(out, p)
	}
	return out
}
