package openapi

import (
	"fmt"
	"strings"

	"github.com/retryspec/retryspec/contract"
	"go.yaml.in/yaml/v3"
)

// The OpenAPI additions for a window measured from the client's first-sent
// time and for the result header (issue 32): a header parameter beside the
// key, the too-old conflict response, the result header on every answer,
// and their figures in x-idempotency.

// FirstSentParameter is the first-sent header parameter of one keyed
// endpoint: sent with the key, so required when the key is.
func FirstSentParameter(c *contract.Contract, e contract.Endpoint) Obj {
	fs := c.Idempotency.FirstSent
	return obj(
		"name", fs.Header,
		"in", "header",
		"required", e.Key == contract.KeyRequired,
		"description", fmt.Sprintf("The time the client first sent this request, as an HTTP date in UTC (IMF-fixdate), sent unchanged on every retry with the same %s. "+
			"A request first sent more than %s (%s) ago is refused with %s; a missing or malformed time with %s.",
			c.Idempotency.Header, fs.Window, contract.HumanDuration(fs.Window.D), statusAndCode(c.Idempotency.Conflicts.TooOld), statusAndCode(c.Idempotency.Conflicts.InvalidKey)),
		"schema", obj("type", "string", "example", contract.FirstSentExample),
	)
}

// statusAndCode is "412" or "400 invalid_idempotency_key".
func statusAndCode(cf contract.Conflict) string {
	if cf.Code == "" {
		return fmt.Sprint(cf.Status)
	}
	return fmt.Sprintf("%d %s", cf.Status, cf.Code)
}

// ResultHeader declares the result header with the values a response can
// carry: the accepted value on a success, each conflict's own value on a
// conflict response (contract.ResultValue).
func ResultHeader(c *contract.Contract, values ...string) Obj {
	rh := c.Idempotency.ResultHeader
	enum := make([]any, 0, len(values))
	for _, v := range values {
		enum = append(enum, v)
	}
	return obj(
		"description", fmt.Sprintf("%s when the server took the request (ran it, returned its stored response, or is still running the first request with the same %s); %s when it refused it without running it.",
			rh.Accepted, c.Idempotency.Header, rh.Rejected),
		"schema", obj("type", "string", "enum", enum),
	)
}

// conflictHeaders is the headers object of one conflict response: the
// result header with the group's values, nil without a result header.
func conflictHeaders(c *contract.Contract, g conflictGroup) Obj {
	rh := c.Idempotency.ResultHeader
	if !rh.Set() {
		return nil
	}
	var values []string
	for _, k := range g.kinds {
		if v := c.ResultValue(k.reply); !contains(values, v) {
			values = append(values, v)
		}
	}
	return obj(rh.Name, ResultHeader(c, values...))
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// repeatabilityExtension is x-idempotency's first-sent and result-header
// entries; nil when the contract has neither.
func repeatabilityExtension(c *contract.Contract) Obj {
	id := c.Idempotency
	var x Obj
	if fs := id.FirstSent; fs.Set() {
		f := Obj{}
		if fs.Header != "" {
			f = append(f, KV{"header", fs.Header})
		}
		f = append(f, KV{"window", fs.Window.String()}, KV{"window-seconds", int(fs.Window.D.Seconds())})
		x = append(x, KV{"first-sent", f})
	}
	if rh := id.ResultHeader; rh.Set() {
		x = append(x, KV{"result-header", obj("name", rh.Name, "accepted", rh.Accepted, "rejected", rh.Rejected)})
	}
	return x
}

// firstSentParameter is the first-sent header parameter one keyed
// operation needs; false when the contract has none or the operation or
// its path item declares it already.
func (b *planner) firstSentParameter(e contract.Endpoint, op Operation) (Obj, bool) {
	fs := b.c.Idempotency.FirstSent
	if !fs.Set() || fs.Header == "" {
		return nil, false
	}
	for _, list := range []*yaml.Node{deref(mapGet(op.node, "parameters")), deref(mapGet(op.pathItem, "parameters"))} {
		if list == nil || list.Kind != yaml.SequenceNode {
			continue
		}
		for _, item := range list.Content {
			param, _ := b.s.resolveRef(deref(item))
			if param != nil && strings.EqualFold(scalar(mapGet(param, "in")), "header") && strings.EqualFold(scalar(mapGet(param, "name")), fs.Header) {
				b.reused(e.Operation, item, "header parameter %s is already declared; reused", fs.Header)
				return nil, false
			}
		}
	}
	return FirstSentParameter(b.c, e), true
}

// tooOldMeaning is what the too-old conflict means and what the
// integrator does.
func tooOldMeaning(c *contract.Contract) (what, todo string) {
	fs := c.Idempotency.FirstSent
	name := fs.Header
	if name == "" {
		name = "first-sent"
	}
	return fmt.Sprintf("the request's %s time is more than %s old.", name, fs.Window),
		"Do not resend it as it is: find out whether the first attempt took effect, and only if it did not, send a new request with a new key and a new first-sent time."
}

func (o Obj) keys() []string {
	out := make([]string, len(o))
	for i, kv := range o {
		out[i] = kv.K
	}
	return out
}
