package faultserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Step is how the server answers one request of a session.
type Step struct {
	Status     int
	RetryAfter string // Retry-After header value, when set
	Body       string // JSON body; a small default when empty
	// Delay holds the answer back; the request is marked ClientGone when the
	// client hangs up first (its per-attempt timeout or deadline fired).
	Delay time.Duration
	// Reset closes the connection with a TCP RST instead of answering.
	Reset bool
	// Effect marks the answer that carries the result: the request took
	// effect (a check counts them, to prove it happens once).
	Effect bool
}

// Script is the answers to a session's requests in order; the last step
// repeats for every further request.
type Script []Step

// Request is what the server saw of one request.
type Request struct {
	Arrived time.Time
	// Answered is when the answer (or the reset) started going out, taken
	// before the first byte is written so no client can have seen it
	// earlier: the gap to the next request is never shorter than the
	// client's wait. Zero when the client hung up first.
	Answered   time.Time
	ClientGone bool
	Method     string
	Path       string
	// RawKey is the idempotency key as sent (the header's value, or the
	// body member's string), Key the same unquoted when it is an RFC 8941
	// string.
	RawKey      string
	Key         string
	ContentType string
	Body        []byte
	Step        Step
	// FirstSent is the first-sent header's value as sent, "" when absent
	// or when the key place names no first-sent header.
	FirstSent string
}

// KeyPlace is where requests carry the idempotency key: a header, or the
// member Field of the JSON body's top-level object when Field is set.
type KeyPlace struct {
	Header string
	Field  string
	// FirstSent names the header carrying the first-sent time
	// (idempotency.first_sent.header), recorded beside the key; "" when
	// the contract has none.
	FirstSent string
	// GraphQL, when set, reads the key from the GraphQL request's
	// mutation document instead (idempotency.key_in: graphql).
	GraphQL *GraphQLKey
}

// key reads the key from r as sent, and its JSON text body.
func (kp KeyPlace) key(r *http.Request, body []byte) string {
	if kp.GraphQL != nil {
		return kp.GraphQL.key(body)
	}
	if kp.Field == "" {
		return r.Header.Get(kp.Header)
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(body, &members) != nil {
		return ""
	}
	var key string
	if json.Unmarshal(members[kp.Field], &key) != nil {
		return ""
	}
	return key
}

// Server serves scripted sessions on 127.0.0.1.
type Server struct {
	place KeyPlace
	srv   *http.Server
	ln    net.Listener
	base  string

	mu       sync.Mutex
	next     int
	sessions map[string]*Session
	// root, when set, answers every request whatever its path.
	root *Session
}

// Session is one scripted conversation, reached at its BaseURL.
type Session struct {
	id     string
	base   string
	script Script

	mu       sync.Mutex
	requests []Request
}

// Start listens on a free loopback port. header is the idempotency header
// whose value each request records.
func Start(header string) (*Server, error) {
	return StartOn(header, "127.0.0.1")
}

// StartOn is Start on another loopback address: "::1" serves the
// sessions at http://[::1]:PORT, so the snippets are proven to build
// their requests from an IPv6 literal base URL too.
func StartOn(header, host string) (*Server, error) {
	return StartAt(KeyPlace{Header: header}, host)
}

// StartAt is StartOn for a key that travels in place: a header, or a
// member of the JSON body (idempotency.key_in: body).
func StartAt(place KeyPlace, host string) (*Server, error) {
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("fault server: %q is not a loopback address", host)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return nil, err
	}
	s := &Server{
		place:    place,
		ln:       ln,
		base:     "http://" + ln.Addr().String(),
		sessions: map[string]*Session{},
	}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: 10 * time.Second}
	go s.srv.Serve(ln)
	return s, nil
}

// Close stops the server and drops open connections.
func (s *Server) Close() error {
	return s.srv.Close()
}

// Shutdown stops the server gracefully.
func (s *Server) Shutdown(ctx context.Context) error { return s.srv.Shutdown(ctx) }

// NewSession registers a script under a fresh prefix.
func (s *Server) NewSession(script Script) *Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next++
	id := "s" + strconv.Itoa(s.next)
	sess := &Session{id: id, base: s.base + "/" + id, script: script}
	s.sessions[id] = sess
	return sess
}

// NewRootSession serves script at the root of the server: every request,
// whatever its path, belongs to it, and its BaseURL is the server's own
// (http://127.0.0.1:PORT). It is for a program that takes a bare base URL,
// as an SDK's host setting does, and calls the API's own paths; one root
// session per server, so start a server per scripted program run.
func (s *Server) NewRootSession(script Script) *Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.root = &Session{id: "", base: s.base, script: script}
	return s.root
}

// BaseURL is the session's base URL: the snippet's path goes after it.
func (sess *Session) BaseURL() string { return sess.base }

// Requests returns what the session has seen so far, in arrival order.
func (sess *Session) Requests() []Request {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	return append([]Request(nil), sess.requests...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	arrived := time.Now()
	rest := strings.TrimPrefix(r.URL.Path, "/")
	id, path, _ := strings.Cut(rest, "/")
	s.mu.Lock()
	sess := s.sessions[id]
	if s.root != nil {
		sess, path = s.root, rest
	}
	s.mu.Unlock()
	if sess == nil {
		http.Error(w, `{"error":{"code":"unknown_session"}}`, http.StatusNotFound)
		return
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	raw := s.place.key(r, body)
	req := Request{
		Arrived: arrived, Method: r.Method, Path: "/" + path,
		RawKey: raw, Key: raw, Body: body, ContentType: r.Header.Get("Content-Type"),
	}
	if s.place.FirstSent != "" {
		req.FirstSent = r.Header.Get(s.place.FirstSent)
	}
	if s.place.Field == "" && s.place.GraphQL == nil {
		req.Key = unquoteSFString(raw)
	}
	sess.mu.Lock()
	n := len(sess.requests)
	step := sess.script[min(n, len(sess.script)-1)]
	req.Step = step
	sess.requests = append(sess.requests, req)
	sess.mu.Unlock()

	record := func(gone bool) {
		sess.mu.Lock()
		defer sess.mu.Unlock()
		if gone {
			sess.requests[n].ClientGone = true
		} else {
			sess.requests[n].Answered = time.Now()
		}
	}
	if step.Delay > 0 {
		select {
		case <-time.After(step.Delay):
		case <-r.Context().Done():
			record(true)
			return
		}
	}
	record(false)
	if step.Reset {
		reset(w)
		return
	}
	if step.RetryAfter != "" {
		w.Header().Set("Retry-After", step.RetryAfter)
	}
	b := step.Body
	if b == "" {
		b = fmt.Sprintf(`{"status":%d}`, step.Status)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Connection", "close")
	w.WriteHeader(step.Status)
	io.WriteString(w, b)
}

// reset hijacks the connection and closes it with SO_LINGER 0, so the
// client sees ECONNRESET rather than an orderly end of stream.
func reset(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic("faultserver: connection cannot be hijacked")
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		return
	}
	if tcp, ok := conn.(*net.TCPConn); ok {
		tcp.SetLinger(0)
	}
	conn.Close()
}

// unquoteSFString reads an RFC 8941 sf-string ("..." with \" and \\);
// anything else is returned as is.
func unquoteSFString(v string) string {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return v
	}
	var b strings.Builder
	for i := 1; i < len(v)-1; i++ {
		c := v[i]
		if c == '\\' && i+1 < len(v)-1 {
			i++
			c = v[i]
		}
		b.WriteByte(c)
	}
	return b.String()
}
