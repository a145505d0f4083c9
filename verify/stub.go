package verify

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
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
}

// trap kills the server once when call arrives, before or after answering.
type trap struct {
	call        string
	afterAnswer bool
	kill        func()
	fired       chan struct{}
}

func startStub() (*stub, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("cannot host the external-call stub: %w", err)
	}
	s := &stub{ln: ln, answers: map[string]string{}, counter: map[string]int{}}
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
	key := r.Header.Get("Idempotency-Key")
	s.mu.Lock()
	s.calls[name]++
	if s.tally[name] == nil {
		s.tally[name] = map[string]bool{}
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
	t := s.armed
	if t != nil && t.call == name {
		s.armed = nil
	} else {
		t = nil
	}
	s.mu.Unlock()

	if t != nil && !t.afterAnswer {
		t.kill()
		close(t.fired)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write([]byte(answer))
	if t != nil {
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		t.kill()
		close(t.fired)
	}
}
