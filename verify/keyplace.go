package verify

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/retryspec/retryspec/contract"
)

// Where verify puts the key, and the first-sent time that goes with it,
// as a client of the contract does (issue 32): in the header, or at
// key_field in the JSON body (contract.Idempotency.WithKey, the function
// behind the docs' example request and the snippets); and, with
// first_sent, one HTTP date per key, stamped when the key is first used
// and sent unchanged on every request with it.

// placeKey gives req the key: in the contract's header, or at key_field
// in its JSON body. key "" sends none: a body key's member is taken out
// of the plan's body, so the request lacks only its key.
func (r *runner) placeKey(req *Request, key string) {
	id := r.c.Idempotency
	if id.InBody() {
		req.Body = keyedBody(id, req.Body, key)
		return
	}
	if key == "" {
		return
	}
	v := key
	if id.HeaderValue == contract.HeaderSFString {
		v = strconv.Quote(key)
	}
	req.Headers = append(req.Headers, sentHeader{Name: id.Header, Value: v})
}

// keyedBody is body with key at key_field (without the member for key
// ""), as compact JSON. A body verify cannot read as a JSON object is sent
// as it is (the plan loader refuses one for a body key); no body is an
// empty object, the least that carries the key.
func keyedBody(id contract.Idempotency, body []byte, key string) []byte {
	v := contract.JSONValue{Kind: contract.JSONObject}
	if body != nil {
		parsed, err := contract.ParseJSON(body)
		if err != nil || parsed.Kind != contract.JSONObject {
			return body
		}
		v = parsed
	}
	v = id.WithoutKey(v)
	if key != "" {
		v = id.WithKey(v, key)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(v.String())); err != nil {
		return body
	}
	return b.Bytes()
}

// placeFirstSent stamps req with key's first-sent time when the contract
// measures a window from one: the time the key was first used, the same
// on every request with it. A request without a key carries a time of
// its own, as a client's first attempt does.
func (r *runner) placeFirstSent(req *Request, key string) {
	fs := r.c.Idempotency.FirstSent
	if !fs.Set() || fs.Header == "" {
		return
	}
	req.Headers = append(req.Headers, sentHeader{Name: fs.Header, Value: r.fills.firstSent(key).UTC().Format(http.TimeFormat)})
}

// firstSent is the first-sent time of key: stamped at its first use,
// or set by stampFirstSent.
func (f *fills) firstSent(key string) time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	if t, ok := f.sent[key]; ok && key != "" {
		return t
	}
	t := time.Now()
	if key != "" {
		f.stampLocked(key, t)
	}
	return t
}

// stampFirstSent sets key's first-sent time: a time older than the window
// (the too-old gate), or a new one for a key reused as a new request
// after the window (after_window: new-request, as a client sends it).
func (f *fills) stampFirstSent(key string, t time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stampLocked(key, t)
}

func (f *fills) stampLocked(key string, t time.Time) {
	if f.sent == nil {
		f.sent = map[string]time.Time{}
	}
	f.sent[key] = t
}

// keyName names the key's place for messages: the header's name, or the
// body member ("the /idempotency_key member of the JSON body").
func (r *runner) keyName() string {
	if r.c.Idempotency.InBody() || r.c.Idempotency.InGraphQL() {
		return r.c.Idempotency.KeyPlace()
	}
	return r.c.Idempotency.Header
}
