package verify

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// stub is the external-call stub: it stands in for the API's downstream
// services (a bank, a mailer) at RETRYSPEC_EXTERNAL_URL. It applies each
// (call name, Idempotency-Key) once, as a real provider's idempotency does,
// and can kill the server when a named call arrives.
type stub struct {
	srv *http.Server
	ln  net.Listener

	mu      sync.Mutex
	answers map[string]string          // name + "\x00" + key -> answer body
	counter map[string]int             // per call name, for ids
	tally   map[string]map[string]bool // since reset: name -> keys applied
	calls   map[string]int             // since reset: name -> requests (repeats included)
	armed   *trap
	// unkeyed: the provider has no idempotency keys, so every request is
	// an effect (the plan's crash.provider_keys: false).
	unkeyed bool
	// log is every arrival and answer since reset, in order: which calls a
	// killed server had seen answered, and which it called again after.
	log []stubEvent
	// failCall, when set, is answered once with a 500 and not applied, to
	// make the handler fail (the failed-attempt gate); failed counts those.
	failCall string
	failed   int
}

type stubEvent struct {
	call     string
	answered bool // false: the request arrived
	at       time.Time
}

// killPhase is where in an external call a trap kills the server.
type killPhase int

const (
	killOnArrival killPhase = iota // before the stub applies the call
	killApplied                    // applied, before the answer
	killAnswered                   // right after the answer
)

// trap kills the server once when call arrives, at phase.
type trap struct {
	call  string
	phase killPhase
	kill  func()
	fired chan struct{}
	// at is the log's length when the kill happened.
	at int
}

// startStub hosts the stub on loopback; unkeyed is the plan's
// crash.provider_keys: false.
func startStub(unkeyed bool) (*stub, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("cannot host the external-call stub: %w", err)
	}
	s := &stub{ln: ln, answers: map[string]string{}, counter: map[string]int{}, unkeyed: unkeyed}
	s.reset()
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve)}
	go s.srv.Serve(ln)
	return s, nil
}

func (s *stub) URL() string { return "http://" + s.ln.Addr().String() }

func (s *stub) close() { s.srv.Close() }

// reset starts a new tally (the stored answers stay, as a provider's would).
func (s *stub) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tally = map[string]map[string]bool{}
	s.calls = map[string]int{}
	s.armed = nil
	s.log = nil
	s.failCall, s.failed = "", 0
}

// failNext makes the next request for call fail with a 500 that applies
// nothing, as a provider's outage does; "" disarms it.
func (s *stub) failNext(call string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failCall = call
}

// failures is how many requests the stub failed since reset.
func (s *stub) failures() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.failed
}

// mark is the log's current length.
func (s *stub) mark() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.log)
}

// recordedBefore lists the calls answered before a later call arrived,
// within the first n events: a server that made the next call had
// recorded the previous one's result (each phase commits before the next
// call), so those calls must not be made again at all.
func (s *stub) recordedBefore(n int) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	answered := map[string]bool{}
	for _, e := range s.log[:min(n, len(s.log))] {
		if e.answered {
			answered[e.call] = true
			continue
		}
		for c := range answered {
			if !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	slices.Sort(out)
	return out
}

// lastAnswer is when the stub last answered a call since reset (zero: none).
func (s *stub) lastAnswer() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.log) - 1; i >= 0; i-- {
		if s.log[i].answered {
			return s.log[i].at
		}
	}
	return time.Time{}
}

// arrivalsSince counts the requests per call after the first n events.
func (s *stub) arrivalsSince(n int) map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int{}
	for _, e := range s.log[min(n, len(s.log)):] {
		if !e.answered {
			out[e.call]++
		}
	}
	return out
}

func (s *stub) arm(t *trap) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.armed = t
}

// effects returns, per call name, how many distinct keys were applied since reset.
func (s *stub) effects() (map[string]int, map[string]int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int{}
	for name, keys := range s.tally {
		out[name] = len(keys)
	}
	calls := map[string]int{}
	for k, v := range s.calls {
		calls[k] = v
	}
	return out, calls
}

func (s *stub) serve(w http.ResponseWriter, r *http.Request) {
	name := strings.Trim(r.URL.Path, "/")
	if r.Method != http.MethodPost || name == "" || strings.Contains(name, "/") {
		http.Error(w, `{"error":{"code":"not_an_external_call"}}`, http.StatusNotFound)
		return
	}
	s.mu.Lock()
	s.calls[name]++
	s.log = append(s.log, stubEvent{call: name})
	if s.failCall == name {
		s.failCall = ""
		s.failed++
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		w.Write([]byte(`{"error":{"code":"provider_unavailable","message":"the stub failed this call on purpose; it applied nothing"}}`))
		return
	}
	t := s.takeTrap(name)
	if t != nil && t.phase == killOnArrival {
		s.springLocked(t)
		return
	}
	answer := s.applyLocked(name, r.Header.Get("Idempotency-Key"))
	if t != nil && t.phase == killApplied {
		s.springLocked(t)
		return
	}
	// Logged before it is written, so it precedes any call it lets the
	// server make next.
	s.log = append(s.log, stubEvent{call: name, answered: true, at: time.Now()})
	if t != nil {
		t.at = len(s.log)
	}
	s.mu.Unlock()

	w.Header().Set("Content-Type", "application/json")
	w.Write([]byte(answer))
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	if t != nil {
		t.kill()
		close(t.fired)
	}
}

// takeTrap disarms and returns the trap armed for call name, or nil when
// none is. s.mu is held.
func (s *stub) takeTrap(name string) *trap {
	t := s.armed
	if t == nil || t.call != name {
		return nil
	}
	s.armed = nil
	return t
}

// springLocked kills the server at this point of the call, without an
// answer. s.mu is held, and released.
func (s *stub) springLocked(t *trap) {
	t.at = len(s.log)
	s.mu.Unlock()
	t.kill()
	close(t.fired)
}

// applyLocked applies call name under key and returns its answer: a new
// effect, or the answer the key already got (a provider's idempotency).
// Without provider keys (unkeyed) every call is an effect of its own.
// s.mu is held.
func (s *stub) applyLocked(name, key string) string {
	if s.tally[name] == nil {
		s.tally[name] = map[string]bool{}
	}
	if s.unkeyed {
		key = ""
	}
	answer, seen := s.answers[name+"\x00"+key]
	if !seen || key == "" {
		s.counter[name]++
		b, _ := json.Marshal(map[string]string{"id": fmt.Sprintf("%s_%d", name, s.counter[name])})
		answer = string(b)
		if key != "" {
			s.answers[name+"\x00"+key] = answer
		}
	}
	if key == "" {
		key = fmt.Sprintf("\x00unkeyed-%d", s.counter[name]) // every unkeyed call is its own effect
	}
	s.tally[name][key] = true
	return answer
}
