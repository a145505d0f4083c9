package render

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"

	"github.com/retryspec/retryspec/contract"
)

// graphQLView is what the pages show of a GraphQL contract
// (idempotency.key_in: graphql): the mutation document with the key where
// the contract puts it, the POST that carries it, and the conflicts as the
// error entries of a 200. Its zero value (On false) for every other
// contract, which keeps their pages as they were.
type graphQLView struct {
	On bool
	// Path is idempotency.graphql.path, where every mutation is POSTed.
	Path string
	// KeyPlace is contract.Idempotency.KeyPlace, for sentences.
	KeyPlace string
	// Variable is the variable the document passes the key in.
	Variable string
	// Mutation is the example's mutation, Document its GraphQL document,
	// Request the HTTP POST that carries it with the key's variable.
	Mutation, Document, Request string
	// CodeAt is where a conflict's code is in the 200 response, for the
	// example mutation; CodeAtAny the same for any mutation.
	CodeAt, CodeAtAny string
	// Stores200: a 200 is stored, so a mutation's error entries come back
	// on a retry with the same key (contract.Idempotency.Stores).
	Stores200 bool
	// Conflicts are the conflicts with a code, in the order the pages
	// list them, and the 200 body that reports each.
	Conflicts []graphQLConflict
}

type graphQLConflict struct {
	Name, Code string
	// Situation and Do are the Idempotent requests page's cells, Meaning
	// and Retry the Errors page's, RetryShort and Why the Retrying page's.
	Situation, Do, Meaning, Retry, RetryShort, Why string
	// Body is the 200 response that reports it (contract.GraphQLReply).
	Body string

	kind contract.ReplyKind
	cf   contract.Conflict
}

// graphQLRows are the conflicts a GraphQL page can list, in page order,
// with what each means for a client.
func graphQLRows(id contract.Idempotency) []graphQLConflict {
	cs := id.Conflicts
	return []graphQLConflict{
		{Name: "payload_mismatch", kind: contract.ReplyPayloadMismatch, cf: cs.PayloadMismatch,
			Situation:  "Same key, different variables or arguments",
			Do:         "Fix the client: a key belongs to one request. Send the original mutation again, or use a new key for a new operation.",
			Meaning:    "The idempotency key was already used with a different mutation or different variables.",
			Retry:      "No. Resend the original mutation, or use a new key for a new operation.",
			RetryShort: "no", Why: "The key was already used with a different mutation: a bug in the client."},
		{Name: "in_flight", kind: contract.ReplyInFlight, cf: cs.InFlight,
			Situation:  "Same key while the first request is still running",
			Do:         "Wait, then send the same mutation with the same key, following the backoff schedule.",
			Meaning:    "A mutation with this key is still being processed.",
			Retry:      "Yes: wait, then send the same mutation with the same key and variables.",
			RetryShort: "yes, after a wait", Why: "The first mutation with this key is still running. Wait, then send it again with the same key."},
		{Name: "missing_key", kind: contract.ReplyMissingKey, cf: cs.MissingKey,
			Situation:  "Key missing on a mutation that requires one",
			Do:         "Add " + id.KeyPlace() + ".",
			Meaning:    "The mutation requires a key in " + id.KeyPlace() + " and the request had none.",
			Retry:      "No. Add a key and send the mutation again.",
			RetryShort: "no", Why: "The mutation requires an idempotency key; add one and send a new request."},
		{Name: "invalid_key", kind: contract.ReplyInvalidKey, cf: cs.InvalidKey,
			Situation:  "Key too long or not a string",
			Do:         "Send a key of at most " + strconv.Itoa(id.MaxKeyLength) + " characters.",
			Meaning:    "The key is longer than " + strconv.Itoa(id.MaxKeyLength) + " characters or not a string.",
			Retry:      "No. Send a valid key.",
			RetryShort: "no", Why: "The key is not one the API accepts; fix it and send a new request."},
	}
}

func newGraphQLView(c *contract.Contract) graphQLView {
	id := c.Idempotency
	if !id.InGraphQL() {
		return graphQLView{}
	}
	g := id.GraphQL
	v := graphQLView{On: true, Stores200: id.Stores(200), Path: g.Path, KeyPlace: id.KeyPlace(), Variable: g.KeyVariable(), CodeAtAny: g.CodeAt("<mutation>")}
	ep, ok := c.FirstRequiredKeyEndpoint()
	if !ok && len(c.Endpoints) > 0 {
		ep = c.Endpoints[0]
	}
	v.Mutation = ep.Mutation
	v.CodeAt = g.CodeAt(ep.Mutation)
	args, _ := ep.ExampleBody()
	v.Document = g.MutationDocument(ep.Mutation, args, false)
	v.Request = graphQLRequest(c, ep.Mutation, g.MutationDocument(ep.Mutation, args, true))
	for _, r := range graphQLRows(id) {
		if !c.Has("idempotency.conflicts." + r.Name) {
			// Not stated: the contract's HTTP defaults are no answer this
			// API gives, so the pages do not claim one.
			continue
		}
		if r.Name == "in_flight" && (id.InFlight == nil || id.InFlight.Response != contract.InFlightConflict) {
			continue // stated, but this contract's in-flight answer is not a conflict
		}
		r.Code = r.cf.Code
		r.Body = indentJSON(c.GraphQLReply(r.kind, ep.Mutation).String())
		v.Conflicts = append(v.Conflicts, r)
	}
	return v
}

// graphQLRequest is the HTTP request that carries a mutation: a POST to
// the GraphQL path with the document and the key's variable as JSON.
func graphQLRequest(c *contract.Contract, mutation, query string) string {
	host, prefix := c.API.BaseURL, ""
	if u, err := url.Parse(c.API.BaseURL); err == nil && u.Host != "" {
		host, prefix = u.Host, strings.TrimSuffix(u.EscapedPath(), "/")
	}
	g := c.Idempotency.GraphQL
	body := contract.JSONValue{Kind: contract.JSONObject, Members: []contract.JSONMember{
		{Name: "query", Value: contract.JSONValue{Kind: contract.JSONString, Text: query}},
		{Name: "variables", Value: contract.JSONValue{Kind: contract.JSONObject, Members: []contract.JSONMember{
			{Name: g.KeyVariable(), Value: contract.JSONValue{Kind: contract.JSONString, Text: sampleKey}},
		}}},
	}}
	var b strings.Builder
	b.WriteString("POST " + prefix + g.Path + " HTTP/1.1\n")
	b.WriteString("Host: " + host + "\n")
	b.WriteString("Content-Type: application/json\n\n")
	b.WriteString(indentJSON(body.String()))
	return b.String()
}

// indentJSON is a JSON text as the pages show it, two spaces per level,
// ending in a newline.
func indentJSON(s string) string {
	var b bytes.Buffer
	if err := json.Indent(&b, []byte(s), "", "  "); err != nil {
		return s + "\n"
	}
	return b.String() + "\n"
}
