package idempotency

import (
	"encoding/json"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/idempotency/alerting"
)

// sentKey is what a request sent as its key, read where the contract's
// key_in says the key travels.
type sentKey struct {
	key string
	// state says whether a key was sent and usable.
	state keySent
	// why says, for the log, what was wrong with it.
	why string
}

type keySent int

const (
	keyNotSent   keySent = iota // no key: the header or member is absent, null or empty
	keySentOK                   // a key in its form, not yet checked against a length bound
	keyMalformed                // something was sent, but not a key in the contract's form
)

// readSentKey reads the request's key: from the contract's header, or
// from the key_field member of body (already read, for key_in: body).
func (h *endpointHandler) readSentKey(r *http.Request, body []byte) sentKey {
	idem := h.m.c.Idempotency
	if idem.InBody() {
		return bodyKey(body, idem.KeyMember())
	}
	raw, present := readKey(r, idem.Header)
	if !present {
		return sentKey{state: keyNotSent, why: "no " + idem.Header + " header"}
	}
	key, ok := parseKey(raw, idem.HeaderValue)
	if !ok {
		return sentKey{state: keyMalformed, why: "the " + idem.Header + " header is not in the key's form (header_value: " + string(idem.HeaderValue) + ")"}
	}
	return sentKey{key: key, state: keySentOK}
}

// bodyKey reads the key from member of a JSON body (key_in: body; the
// loader allows only a member of the top-level object). A body that is
// not a JSON object carries no such member, so its request gets the
// missing-key answer, which the Errors page words as "the request had
// none"; so do an absent member, a null one and an empty string (as an
// absent or empty header does). A member of another type (a number, an
// object) or a string that is no key (a line break, a NUL) gets the
// invalid-key answer: the pages say "not a string". A body with the member
// twice counts the last, as encoding/json and the JSON parsers of Python
// and JavaScript do, so the key read here is the key the handler reads.
func bodyKey(body []byte, member string) sentKey {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(body, &obj); err != nil {
		return sentKey{state: keyNotSent, why: "the body is not a JSON object"}
	}
	raw, ok := obj[member]
	if !ok || string(raw) == "null" {
		return sentKey{state: keyNotSent, why: "no " + member + " member in the body"}
	}
	var key string
	if err := json.Unmarshal(raw, &key); err != nil {
		return sentKey{state: keyMalformed, why: "the body's " + member + " member is not a string"}
	}
	if key == "" {
		return sentKey{state: keyNotSent, why: "the body's " + member + " member is empty"}
	}
	// encoding/json has already replaced bytes that are not UTF-8.
	if strings.ContainsAny(key, "\r\n\x00") {
		return sentKey{state: keyMalformed, why: "the body's " + member + " member holds a line break or a NUL"}
	}
	return sentKey{key: key, state: keySentOK}
}

// tooLong reports whether key is longer than the endpoint takes: its own
// max_key_length, else the API-wide one (contract.MaxKeyLengthFor, the
// bound the pages and the OpenAPI maxLength state).
func (h *endpointHandler) tooLong(key string) bool {
	return utf8.RuneCountInString(key) > h.m.c.MaxKeyLengthFor(h.ep)
}

// keyConflict is the answer to a key that cannot be served: the
// missing-key one when none was sent, else the invalid-key one.
func keyConflict(s sentKey) (kind string, reply contract.ReplyKind) {
	if s.state == keyNotSent {
		return alerting.KindMissingKey, contract.ReplyMissingKey
	}
	return alerting.KindInvalidKey, contract.ReplyInvalidKey
}
