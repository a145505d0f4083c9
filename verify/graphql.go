package verify

import (
	"bytes"
	"encoding/json"
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/retryspec/retryspec/contract"
)

// verify speaks GraphQL over HTTP POST for a contract with key_in: graphql
// (issue 32): every request is a POST to idempotency.graphql.path whose
// JSON body is {"query": the mutation document, "variables": {the key}},
// the document built by contract.GraphQL.MutationDocument (the one the
// pages show) from the plan's body, which holds the mutation's arguments.
// A conflict is a 200 whose body has the contract's code where errors_in
// puts it (contract.GraphQL.ReadAnswer, the reader of GraphQLReply's
// bytes). The gates are the HTTP ones; these functions are their GraphQL
// branches, hooked in at the few places that build a request or judge an
// answer.

// placeGraphQL turns req's body (the mutation's arguments) into the
// GraphQL request: the document with the key's variable and the key in
// variables, or for key "" the document without the key at all (no
// variable, no directive or key argument), as a client that forgot it
// sends it.
func (r *runner) placeGraphQL(req *Request, op Operation, key string) {
	g := r.c.Idempotency.GraphQL
	args := contract.JSONValue{Kind: contract.JSONObject}
	if req.Body != nil {
		if v, err := contract.ParseJSON(req.Body); err == nil {
			args = v
		}
	}
	str := func(s string) contract.JSONValue { return contract.JSONValue{Kind: contract.JSONString, Text: s} }
	query, vars := g.UnkeyedDocument(op.Endpoint.Mutation, args, true), contract.JSONValue{Kind: contract.JSONObject}
	if key != "" {
		query = g.MutationDocument(op.Endpoint.Mutation, args, true)
		vars.Members = []contract.JSONMember{{Name: g.KeyVariable(), Value: str(key)}}
	}
	body := contract.JSONValue{Kind: contract.JSONObject, Members: []contract.JSONMember{
		{Name: "query", Value: str(query)},
		{Name: "variables", Value: vars},
	}}
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(body.String())); err != nil {
		req.Body = []byte(body.String())
		return
	}
	req.Body = b.Bytes()
}

// graphQLAnswer reads resp as the answer to the current gate's mutation.
func (r *runner) graphQLAnswer(resp Response) contract.GraphQLAnswer {
	return r.c.Idempotency.GraphQL.ReadAnswer(resp.Body, r.cur.op.Endpoint.Mutation)
}

// matchesGraphQL is matches for a GraphQL contract. A conflict the
// contract states is its status (200, the contract's) with its code at
// CodeAt; one it leaves unstated has no answer the contract promises (the
// pages show none), so any refusal does: a 4xx, or a 200 with an error
// entry.
func (r *runner) matchesGraphQL(resp Response, c contract.Conflict) bool {
	if resp.Err != nil {
		return false
	}
	if _, stated := r.statedConflict(c); !stated {
		return r.graphQLRefused(resp)
	}
	return resp.Status == c.Status && r.graphQLAnswer(resp).HasCode(c.Code)
}

// graphQLRefused reports whether resp refuses the mutation: a 4xx, or a
// 200 that carries an error entry.
func (r *runner) graphQLRefused(resp Response) bool {
	return r.c.Idempotency.InGraphQL() && resp.Err == nil && (resp.Status/100 == 4 || resp.Status == 200 && r.graphQLAnswer(resp).AnyError)
}

// statedConflict names the conflict c is, when the contract states it
// (idempotency.conflicts.<name> is written).
func (r *runner) statedConflict(c contract.Conflict) (string, bool) {
	cs := r.c.Idempotency.Conflicts
	for _, x := range []struct {
		name string
		c    contract.Conflict
	}{
		{"payload_mismatch", cs.PayloadMismatch}, {"in_flight", cs.InFlight}, {"missing_key", cs.MissingKey},
		{"invalid_key", cs.InvalidKey}, {"expired", cs.Expired}, {"too_old", cs.TooOld},
	} {
		if x.c == c && r.c.Has("idempotency.conflicts."+x.name) {
			return x.name, true
		}
	}
	return "", false
}

// graphQLWant says, for messages, what answer c is under a GraphQL
// contract, for the current gate's mutation.
func (r *runner) graphQLWant(c contract.Conflict) string {
	if _, stated := r.statedConflict(c); !stated {
		return "a refusal (a 4xx, or a 200 with an error entry: the contract states no code for it)"
	}
	return fmt.Sprintf("%d with %s at %s", c.Status, c.Code, r.c.Idempotency.GraphQL.CodeAt(r.cur.op.Endpoint.Mutation))
}

// gateMissingKeyGraphQL sends the mutation without the key (neither the
// directive nor the key argument) and judges the answer by missing_key.
func (r *runner) gateMissingKeyGraphQL(op Operation) (string, *failure) {
	want := r.c.Idempotency.Conflicts.MissingKey
	r.cur.res.Effects = "not observed: a request without a key cannot be counted by key"
	resp := r.send(r.opRequest(op, "", op.Body, primary), false)
	if resp.Err != nil {
		return "", &failure{msg: resp.Describe(), err: errUnresponsive}
	}
	if r.matches(resp, want) {
		r.cur.res.Reason = "answered " + r.graphQLWant(want)
		return "", nil
	}
	place := r.c.Idempotency.KeyPlace()
	fix := "refuse a mutation without " + place + " before any work, with " + r.graphQLWant(want)
	if resp.Status/100 == 2 && !r.graphQLAnswer(resp).AnyError {
		return "", failf("idempotency.conflicts.missing_key", fix, "the mutation without %s was accepted (%s): it ran with no key to protect its retries; the contract promises %s",
			place, resp.Describe(), r.graphQLWant(want)).because(causeUnwrapped)
	}
	return "", failf("idempotency.conflicts.missing_key", fix, "the mutation without %s got %s; the contract promises %s", place, resp.Describe(), r.graphQLWant(want))
}

// graphQLOriginalFailed reports whether the original mutation, answered
// 2xx, still failed: a 200 with an error entry did not run the mutation,
// so no gate has an outcome to compare with.
func (r *runner) graphQLOriginalFailed(resp Response) bool {
	return r.c.Idempotency.InGraphQL() && r.graphQLAnswer(resp).AnyError
}

// skipKeyFormGraphQL: the key is a GraphQL String variable, not a header
// value, so it has no other form.
func (r *runner) skipKeyFormGraphQL() string {
	if !r.c.Idempotency.InGraphQL() {
		return ""
	}
	return fmt.Sprintf("the key travels as the GraphQL variable $%s (%s), a JSON string, so header_value does not apply (a key too long is %s's)",
		r.c.Idempotency.GraphQL.KeyVariable(), r.c.Idempotency.KeyPlace(), GateKeyTooLong)
}

// graphQLArguments refuses a plan body that the mutation document cannot
// carry: MutationDocument leaves out arguments GraphQL cannot spell (a
// member name that is not a GraphQL name), all of them, so verify would
// send a mutation without the plan's arguments.
func (l *planLoader) graphQLArguments(n *yaml.Node, body []byte, what string, g contract.GraphQL) {
	if body == nil {
		return
	}
	v, err := contract.ParseJSON(body)
	none := contract.JSONValue{Kind: contract.JSONObject}
	if err == nil && v.Kind == contract.JSONObject && (len(v.Members) == 0 || g.UnkeyedDocument("m", v, true) != g.UnkeyedDocument("m", none, true)) {
		return
	}
	l.errorf(n, "write "+what+` as a JSON object of the mutation's arguments, every member name a GraphQL name: {"input": {"delta": 5}}`,
		"%s cannot be written as the mutation's GraphQL arguments: it is not a JSON object, or a member name in it is not a GraphQL name ([_A-Za-z][_0-9A-Za-z]*)", what)
}
