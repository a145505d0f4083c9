package idempotency_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"time"

	"github.com/retryspec/retryspec/contract"
)

// keyed is one request to a keyed endpoint, with the key where the
// contract says it travels (a header, or a member of the JSON body) and,
// when the contract measures a first-sent window, the first-sent time.
type keyed struct {
	key  string // "" sends none
	body string // a JSON object, or any text
	// firstSent is the first-sent time sent; zero sends none.
	firstSent time.Time
	account   string
}

// request builds the request for endpoint ep of c.
func (k keyed) request(c *contract.Contract, ep contract.Endpoint) *http.Request {
	id := c.Idempotency
	body := k.body
	if id.InBody() && k.key != "" {
		body = withBodyKey(body, id.KeyMember(), k.key)
	}
	r := httptest.NewRequest(ep.Method, concretePath(ep.Path), strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	if !id.InBody() && k.key != "" {
		v := k.key
		if id.HeaderValue == contract.HeaderSFString {
			v = strconv.Quote(v)
		}
		r.Header.Set(id.Header, v)
	}
	if fs := id.FirstSent; fs.Set() && !k.firstSent.IsZero() {
		r.Header.Set(fs.Header, k.firstSent.UTC().Format(http.TimeFormat))
	}
	if k.account != "" {
		r.Header.Set("X-Account", k.account)
	}
	return r
}

// withBodyKey puts member: key first in the JSON object body (as the
// snippets do); a body that is not an object is left as it is.
func withBodyKey(body, member, key string) string {
	rest, ok := strings.CutPrefix(strings.TrimSpace(body), "{")
	if !ok {
		return body
	}
	m, _ := json.Marshal(member)
	v, _ := json.Marshal(key)
	sep := ","
	if strings.HasPrefix(strings.TrimSpace(rest), "}") {
		sep = ""
	}
	return "{" + string(m) + ":" + string(v) + sep + rest
}

// concretePath fills a contract path's {parameters} with "p1".
func concretePath(p string) string {
	return pathParam.ReplaceAllString(p, "p1")
}
