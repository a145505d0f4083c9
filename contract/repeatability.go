package contract

import (
	"fmt"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// This file holds the parts of the contract that OASIS Repeatable Requests
// 1.0 (the scheme Azure Communication Services publishes) needs and a
// Stripe-shaped contract does not (issue 32): a window measured from a time
// the client states, the answer to a request older than it, and a response
// header that reports whether the server accepted or rejected a request.

// FirstSent is a window measured from the client's own clock: the client
// stamps the time it first sent a request in Header, as an HTTP date
// (IMF-fixdate, RFC 9110 section 5.6.7), and repeats that time unchanged on
// every retry; the server refuses a request whose first-sent time is older
// than Window with conflicts.too_old. The server's own replay_window still
// says how long it keeps the key's record.
type FirstSent struct {
	// Header is the request header carrying the first-sent time; "" when
	// the contract does not name it (window/first-sent-without-header).
	Header string
	// Window is how old a first-sent time may be; zero when the contract
	// measures no window from a client time.
	Window Duration
}

// Set reports whether the contract measures a window from a first-sent time.
func (f FirstSent) Set() bool { return !f.Window.IsZero() }

// ResultHeader is the response header that reports whether the server took
// a keyed request under its contract (Accepted: it ran it, replayed its
// stored answer, or is still running the first one) or refused it
// (Rejected: a conflict, a refused key, a request too old), as
// OASIS's Repeatability-Result.
type ResultHeader struct {
	Name     string
	Accepted string
	Rejected string
}

// Set reports whether the contract names a result header.
func (r ResultHeader) Set() bool { return r.Name != "" }

// Result is what the result header says of one answer.
type Result int

const (
	// ResultAccepted: the server ran the request, replayed its stored
	// answer, or is still running the first request with its key.
	ResultAccepted Result = iota
	// ResultRejected: the server refused the request without running it.
	ResultRejected
)

// ResultOf is what the result header reports with an answer of kind k. The
// in-flight answers are accepted: the key and its request were taken, and
// the first request is still running (Azure's table answers its 409 so).
func ResultOf(k ReplyKind) Result {
	switch k {
	case ReplyInFlight, ReplyInFlightAccepted:
		return ResultAccepted
	}
	return ResultRejected
}

// Value is the header value the contract states for r.
func (r ResultHeader) Value(res Result) string {
	if res == ResultAccepted {
		return r.Accepted
	}
	return r.Rejected
}

// ResultValue is the result header's value with an answer of kind k, ""
// when the contract names no result header. A response the handler wrote
// (a first run or a replay of it) carries Accepted.
func (c *Contract) ResultValue(k ReplyKind) string {
	rh := c.Idempotency.ResultHeader
	if !rh.Set() {
		return ""
	}
	return rh.Value(ResultOf(k))
}

// defaultTooOld is conflicts.too_old when the contract leaves it out:
// OASIS's and Azure's 412 Precondition Failed, with a code of its own.
var defaultTooOld = Conflict{Status: 412, Code: "request_too_old"}

// The result header's default values, OASIS's.
const (
	DefaultResultAccepted = "accepted"
	DefaultResultRejected = "rejected"
)

// decodeRepeatability reads idempotency.first_sent and
// idempotency.result_header.
func (d *decoder) decodeRepeatability(f map[string]*yaml.Node, p string, id *Idempotency) {
	if v, ok := f["first_sent"]; ok {
		d.decodeFirstSent(v, p+".first_sent", id)
	}
	if v, ok := f["result_header"]; ok {
		d.decodeResultHeader(v, p+".result_header", &id.ResultHeader)
	}
	keepTooOld(f, id, d)
}

func (d *decoder) decodeFirstSent(v *yaml.Node, path string, id *Idempotency) {
	g := d.object(v, path, "header", "window")
	if g == nil {
		return
	}
	if x, ok := g["header"]; ok {
		id.FirstSent.Header = d.headerName(x, path+".header")
		if id.FirstSent.Header != "" && strings.EqualFold(id.FirstSent.Header, id.Header) {
			d.errorf(d.resolve(x), path+".header", "name the header that carries the first-sent time, like Repeatability-First-Sent",
				"%s: %s is the key's own header; the first-sent time travels in a header of its own", path+".header", id.FirstSent.Header)
			id.FirstSent.Header = ""
		}
	}
	if x, ok := g["window"]; ok {
		id.FirstSent.Window = d.duration(x, path+".window")
		if id.FirstSent.Window.D > maxFirstSentWindow {
			d.errorf(d.resolve(x), path+".window", "a first-sent window is minutes to hours (Azure's is 5m); keep it at most 7d",
				"%s: %s is longer than 7d", path+".window", id.FirstSent.Window)
		}
	} else {
		d.errorf(d.resolve(v), path+".window", "add window: 5m (how old a first-sent time may be)", "%s needs window:", path)
	}
}

// maxFirstSentWindow bounds first_sent.window: the client's clock decides
// it, so it is short by design.
const maxFirstSentWindow = 7 * 24 * time.Hour

func (d *decoder) decodeResultHeader(v *yaml.Node, path string, rh *ResultHeader) {
	g := d.object(v, path, "name", "accepted", "rejected")
	if g == nil {
		return
	}
	*rh = ResultHeader{Accepted: DefaultResultAccepted, Rejected: DefaultResultRejected}
	if x, ok := g["name"]; ok {
		rh.Name = d.headerName(x, path+".name")
	} else {
		d.errorf(d.resolve(v), path+".name", "add name: Repeatability-Result", "%s needs name:", path)
	}
	for _, val := range []struct {
		key string
		dst *string
	}{{"accepted", &rh.Accepted}, {"rejected", &rh.Rejected}} {
		x, ok := g[val.key]
		if !ok {
			continue
		}
		s := d.str(x, path+"."+val.key)
		if err := validHeader(s); err != nil {
			d.errorf(d.resolve(x), path+"."+val.key, "use a token such as "+val.key, "%s: %v", path+"."+val.key, err)
			continue
		}
		*val.dst = s
	}
	if rh.Accepted != "" && rh.Accepted == rh.Rejected {
		d.errorf(d.resolve(v), path, "give accepted and rejected different values", "%s: accepted and rejected are both %q; a client cannot tell them apart", path, rh.Accepted)
	}
}

// tooOldMessage is the default text of conflicts.too_old.
func (c *Contract) tooOldMessage() string {
	fs := c.Idempotency.FirstSent
	return fmt.Sprintf("This request was first sent more than %s ago, according to its %s header, and is no longer safe to run again. Check whether the first attempt took effect before you send a new request with a new key.",
		fs.Window.String(), firstSentName(fs))
}

// firstSentName names the first-sent header in prose, also when the
// contract leaves it out (a finding then asks for it).
func firstSentName(fs FirstSent) string {
	if fs.Header == "" {
		return "first-sent"
	}
	return fs.Header
}

// invalidKeyMessage is the default text of conflicts.invalid_key; with a
// first-sent header it names that header's form too, since a missing or
// malformed first-sent time gets the same answer.
func (c *Contract) invalidKeyMessage() string {
	id := c.Idempotency
	var m string
	if id.HeaderValue == HeaderSFString {
		m = fmt.Sprintf("The %s header must be a quoted string of 1 to %d characters.", id.Header, id.MaxKeyLength)
	} else {
		m = fmt.Sprintf("The %s header must be 1 to %d characters.", id.Header, id.MaxKeyLength)
	}
	if id.FirstSent.Set() && id.FirstSent.Header != "" {
		m += fmt.Sprintf(" The %s header must be an HTTP date, such as %s.", id.FirstSent.Header, FirstSentExample)
	}
	return m
}

// FirstSentExample is the HTTP date (IMF-fixdate) the docs and the OpenAPI
// additions show as a first-sent time.
const FirstSentExample = "Tue, 26 Mar 2019 16:06:51 GMT"

// keepTooOld drops the default too-old answer from a contract that
// measures no first-sent window and does not write conflicts.too_old, so
// a contract without the window holds no answer it never gives.
func keepTooOld(f map[string]*yaml.Node, id *Idempotency, d *decoder) {
	if id.FirstSent.Set() {
		return
	}
	if cs, ok := f["conflicts"]; ok {
		if rv := d.resolve(cs); rv != nil && rv.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(rv.Content); i += 2 {
				if rv.Content[i].Value == "too_old" {
					return
				}
			}
		}
	}
	id.Conflicts.TooOld = Conflict{}
}
