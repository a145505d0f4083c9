package contract

import (
	"encoding/json"
	"fmt"
)

// This file holds the one function behind every answer the server writes
// itself (a conflict, a refused key, a store failure): its status, code,
// message and body. The middleware sends these bytes; the Errors and
// Idempotent requests pages and the OpenAPI conflict responses show them;
// the fault server answers with them. A test builds each example contract
// and compares the outputs with the middleware's bytes.

// ReplyKind names an answer the server writes itself.
type ReplyKind int

const (
	ReplyPayloadMismatch ReplyKind = iota
	ReplyInFlight
	// ReplyInFlightAccepted is in_flight.response: accepted's 202.
	ReplyInFlightAccepted
	ReplyMissingKey
	ReplyInvalidKey
	ReplyExpired
	// ReplyStoreUnavailable is the 503 when the key store fails: the
	// request is refused rather than run without its claim.
	ReplyStoreUnavailable
	ReplyUnauthenticated
	ReplyBodyTooLarge
	ReplyUnreadableBody
	// ReplyTooOld is conflicts.too_old: the request's first-sent time is
	// older than first_sent.window.
	ReplyTooOld
)

// Reply is one answer: status, code ("" for none), message and body.
type Reply struct {
	Kind    ReplyKind
	Status  int
	Code    string
	Message string
	// Body is the error body in the contract's shape (api.error_body, or
	// DefaultErrorBody); ContentType is its media type.
	Body        BodyValue
	ContentType string
}

// Bytes is the body as the server sends it: compact JSON and a newline.
func (r Reply) Bytes() []byte {
	b, _ := json.Marshal(r.Body)
	return append(b, '\n')
}

// Indented is the body as the docs show it.
func (r Reply) Indented() string {
	b, _ := json.MarshalIndent(r.Body, "", "  ")
	return string(b) + "\n"
}

// Reply is the answer of kind k under this contract. A conflict's status,
// code and message come from idempotency.conflicts (its message, when the
// contract states one, else DefaultMessage); the others have fixed ones.
func (c *Contract) Reply(k ReplyKind) Reply {
	r := Reply{Kind: k, Message: c.DefaultMessage(k)}
	cs := c.Idempotency.Conflicts
	var cf *Conflict
	switch k {
	case ReplyPayloadMismatch:
		cf = &cs.PayloadMismatch
	case ReplyInFlight:
		cf = &cs.InFlight
	case ReplyInFlightAccepted:
		r.Status, r.Code = 202, cs.InFlight.Code
	case ReplyMissingKey:
		cf = &cs.MissingKey
	case ReplyInvalidKey:
		cf = &cs.InvalidKey
	case ReplyExpired:
		cf = &cs.Expired
	case ReplyTooOld:
		cf = &cs.TooOld
	case ReplyStoreUnavailable:
		r.Status, r.Code = 503, "idempotency_store_unavailable"
	case ReplyUnauthenticated:
		r.Status, r.Code = 401, "unauthorized"
	case ReplyBodyTooLarge:
		r.Status, r.Code = 413, "body_too_large"
	case ReplyUnreadableBody:
		r.Status, r.Code = 400, "unreadable_body"
	}
	if cf != nil {
		r.Status, r.Code = cf.Status, cf.Code
		if cf.Message != "" {
			r.Message = cf.Message
		}
	}
	eb := c.API.ErrorBody
	r.Body = eb.Render(r.Status, r.Code, r.Message)
	r.ContentType = eb.MediaType()
	return r
}

// DefaultMessage is the text of an answer whose message the contract does
// not state. It speaks of "the request", not "the body": what makes two
// requests the same is the fingerprint's business, stated on its own.
func (c *Contract) DefaultMessage(k ReplyKind) string {
	id := c.Idempotency
	switch k {
	case ReplyPayloadMismatch:
		return "This idempotency key was already used with a different request. Send the original request again, or use a new key for a new operation."
	case ReplyInFlight:
		return "A request with this idempotency key is still being processed. Wait, then retry with the same key."
	case ReplyInFlightAccepted:
		return "A request with this idempotency key is still being processed. Retry with the same key to get its result."
	case ReplyMissingKey:
		if id.InGraphQL() {
			return fmt.Sprintf("This mutation requires an idempotency key in %s. Send a key you reuse on every retry of this mutation.", id.KeyPlace())
		}
		if id.InBody() {
			return fmt.Sprintf("This endpoint requires an idempotency key in the %s member of the JSON body: the request had none, or %s. Send a key you reuse on every retry of this request.", id.KeyMember(), id.MissingKeyBodyCase())
		}
		return fmt.Sprintf("This endpoint requires the %s header. Send a key you reuse on every retry of this request.", id.Header)
	case ReplyInvalidKey:
		if id.InGraphQL() {
			return fmt.Sprintf("The idempotency key in %s must be a string of 1 to %d characters.", id.KeyPlace(), id.MaxKeyLength)
		}
		if id.InBody() || c.endpointKeyBounds() {
			fewer := ""
			if c.endpointKeyBounds() {
				fewer = " (fewer on some endpoints)"
			}
			if id.InBody() {
				return fmt.Sprintf("The %s member of the body must be a string of 1 to %d characters%s.", id.KeyMember(), id.MaxKeyLength, fewer)
			}
			return fmt.Sprintf("The %s header must be 1 to %d characters%s.", id.Header, id.MaxKeyLength, fewer)
		}
		return c.invalidKeyMessage()
	case ReplyExpired:
		return fmt.Sprintf("This idempotency key was first used more than %s ago. Send a new key.", id.ReplayWindow.String())
	case ReplyStoreUnavailable:
		return "The idempotency store could not be reached. Retry with the same key."
	case ReplyUnauthenticated:
		return "Authenticate to use this endpoint."
	case ReplyBodyTooLarge:
		return "The request body is too large."
	case ReplyUnreadableBody:
		return "The request body could not be read."
	case ReplyTooOld:
		return c.tooOldMessage()
	}
	return ""
}

// InFlightDistinct reports whether a client can tell the in-flight conflict
// from the other conflicts a keyed request may get: by its code, or, when
// it has none, by a status no other conflict uses. A client waits out only
// a conflict it can tell apart; the rule conflict/ambiguous-in-flight
// reports a contract where it cannot.
func InFlightDistinct(cs Conflicts) bool {
	in := cs.InFlight
	for _, o := range cs.All() {
		if o.Name == "in_flight" || o.Status != in.Status {
			continue
		}
		if in.Code == "" || o.Code == in.Code {
			return false
		}
	}
	return true
}

// AnsweredConflicts are the conflicts this contract's server can answer:
// all of them but the expired-key one, which only after_window: error
// uses, and the too-old one, which only a first_sent window uses.
func (c *Contract) AnsweredConflicts() []NamedConflict {
	var out []NamedConflict
	for _, cf := range c.Idempotency.Conflicts.All() {
		if cf.Name == "expired" && c.Idempotency.AfterWindow != AfterWindowError {
			continue
		}
		if cf.Name == "too_old" && !c.Idempotency.FirstSent.Set() {
			continue
		}
		out = append(out, cf)
	}
	return out
}

// MissingKeyBodyCase is the case a body-key contract answers with the
// missing-key reply besides an absent, null or empty key member: a request
// body that is not a JSON object has no members at all (the middleware
// reads it so). The Errors page, the OpenAPI responses and DefaultMessage
// word that case with this one clause; "" for a header key.
func (id Idempotency) MissingKeyBodyCase() string {
	if !id.InBody() {
		return ""
	}
	return "the request body is not a JSON object"
}
