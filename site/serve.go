package site

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/contract/rules"
	"github.com/retryspec/retryspec/findings"
)

// ServeOptions configure `retryspec serve`.
type ServeOptions struct {
	Build Options // Out is ignored: serve builds into a temporary folder
	// Addr is host:port; 127.0.0.1:8080 when empty. Port 0 picks one.
	Addr string
	// Poll is how often the inputs are checked for changes.
	Poll time.Duration
	// Log receives build results and errors (the terminal).
	Log io.Writer
	// Ready, when set, is called with the site's URL once it listens.
	Ready func(url string)
}

// liveReloadJS reloads the page after every build, failed ones included,
// so a broken edit shows its banner and a fix clears it.
const liveReloadJS = `(function () {
  if (!window.EventSource) return;
  var source = new EventSource("/_retryspec/events");
  source.addEventListener("build", function () { window.location.reload(); });
})();
`

type server struct {
	opts ServeOptions
	out  string

	mu      sync.Mutex
	failure string // the last build's error, "" after a good build
	built   bool   // a build has succeeded at least once
	subs    map[chan struct{}]bool
}

// Serve builds the site, serves it and rebuilds it when the contract or a
// template changes, until ctx ends. A build that fails keeps the previous
// site up and shows the error in every page and in the log.
func Serve(ctx context.Context, opts ServeOptions) error {
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:8080"
	}
	if opts.Poll == 0 {
		opts.Poll = 300 * time.Millisecond
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	tmp, err := os.MkdirTemp("", "retryspec-serve-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	s := &server{opts: opts, out: filepath.Join(tmp, "site"), subs: map[chan struct{}]bool{}}

	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return fmt.Errorf("cannot listen on %s: %w", opts.Addr, err)
	}
	srv := &http.Server{Handler: hostGuard(ln.Addr(), s.handler()), ReadHeaderTimeout: 10 * time.Second}
	url := browserURL(ln.Addr())
	s.rebuild(ctx)
	fmt.Fprintf(opts.Log, "retryspec: serving %s (Ctrl+C to stop)\n", url)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	go s.watch(ctx)
	if opts.Ready != nil {
		opts.Ready(url)
	}

	select {
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		s.closeSubscribers()
		srv.Shutdown(shutdown)
		return nil
	case err := <-errc:
		return err
	}
}

// rebuild builds into the served folder and tells every open page.
func (s *server) rebuild(ctx context.Context) {
	opts := s.opts.Build
	opts.Out = s.out
	res, err := Build(ctx, opts)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.failure = describeFailure(err)
		fmt.Fprintf(s.opts.Log, "retryspec: build failed; still serving the last good site:\n%s\n", s.failure)
	} else {
		s.failure = ""
		s.built = true
		fmt.Fprintf(s.opts.Log, "retryspec: built %d files\n", len(res.Files))
	}
	for ch := range s.subs {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// describeFailure is the text shown in the page banner and the terminal.
func describeFailure(err error) string {
	var fe *FindingsError
	if errors.As(err, &fe) {
		var b strings.Builder
		report := findings.Report{Tool: "retryspec", Findings: fe.Findings, Rules: rules.Docs(), Sources: fe.Sources}
		if encErr := findings.Encode(&b, "text", report); encErr != nil {
			return fe.Error()
		}
		return strings.TrimRight(b.String(), "\n") + "\n" + fe.Error()
	}
	var le *contract.LoadError
	if errors.As(err, &le) {
		return le.Error()
	}
	return err.Error()
}

// watch polls the contract and the template folder and rebuilds on change.
// Polling needs no platform watcher and sees edits made by any editor,
// including the write-to-temp-and-rename kind.
func (s *server) watch(ctx context.Context) {
	last := s.fingerprint()
	t := time.NewTicker(s.opts.Poll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		fp := s.fingerprint()
		if fp == last {
			continue
		}
		// Wait for the edit to settle: an editor that truncates the file
		// and then writes it must not show a half-written contract.
		for i := 0; i < 10; i++ {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			next := s.fingerprint()
			if next == fp {
				break
			}
			fp = next
		}
		last = fp
		s.rebuild(ctx)
	}
}

func (s *server) fingerprint() string {
	var b strings.Builder
	stat := func(p string) {
		if st, err := os.Stat(p); err == nil {
			fmt.Fprintf(&b, "%s %d %d\n", p, st.Size(), st.ModTime().UnixNano())
		} else {
			fmt.Fprintf(&b, "%s missing\n", p)
		}
	}
	stat(s.opts.Build.Contract)
	if dir := s.opts.Build.Templates; dir != "" {
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				stat(p)
			}
			return nil
		})
	}
	return b.String()
}

func (s *server) subscribe() chan struct{} {
	ch := make(chan struct{}, 1)
	s.mu.Lock()
	s.subs[ch] = true
	s.mu.Unlock()
	return ch
}

func (s *server) unsubscribe(ch chan struct{}) {
	s.mu.Lock()
	if s.subs[ch] {
		delete(s.subs, ch)
		close(ch)
	}
	s.mu.Unlock()
}

func (s *server) closeSubscribers() {
	s.mu.Lock()
	for ch := range s.subs {
		delete(s.subs, ch)
		close(ch)
	}
	s.mu.Unlock()
}

// hostGuard answers only requests whose Host names the address the server
// listens on: a page on another site could otherwise point a DNS name of
// its own at 127.0.0.1 (DNS rebinding) and read the served pages and the
// build errors (contract text) from the browser. Allowed: the port the
// server listens on, with the listening IP, localhost, 127.0.0.1 or [::1];
// on an unspecified address (0.0.0.0 or ::, which takes an explicit
// --addr) any IP literal, since the machine's addresses are many, but
// still no DNS name other than localhost. A rebinding attack needs a name.
func hostGuard(addr net.Addr, next http.Handler) http.Handler {
	ta, _ := addr.(*net.TCPAddr)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ta == nil || !allowedHost(ta, r.Host) {
			http.Error(w, "retryspec serve answers only requests for the address it listens on (DNS-rebinding protection); open http://"+addr.String()+"/", http.StatusMisdirectedRequest)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// allowedHost reports whether a request's Host header names addr (see
// hostGuard).
func allowedHost(addr *net.TCPAddr, hostHeader string) bool {
	host, port, err := net.SplitHostPort(hostHeader)
	if err != nil {
		// No port: HTTP's default, 80.
		host, port = strings.TrimSuffix(strings.TrimPrefix(hostHeader, "["), "]"), "80"
	}
	if port != strconv.Itoa(addr.Port) {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return false
	}
	if addr.IP.IsUnspecified() || ip.IsLoopback() {
		return true
	}
	return ip.Equal(addr.IP)
}

func (s *server) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/_retryspec/live.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		io.WriteString(w, liveReloadJS)
	})
	mux.HandleFunc("/_retryspec/events", s.events)
	mux.HandleFunc("/", s.page)
	return mux
}

// events is the server-sent event stream: one "build" event per build.
func (s *server) events(w http.ResponseWriter, r *http.Request) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	ch := s.subscribe()
	defer s.unsubscribe(ch)
	io.WriteString(w, ": connected\n\n")
	flusher.Flush()
	for {
		select {
		case <-r.Context().Done():
			return
		case _, ok := <-ch:
			if !ok {
				return
			}
			io.WriteString(w, "event: build\ndata: {}\n\n")
			flusher.Flush()
		}
	}
}

// page serves a file of the site; HTML pages get the live-reload script
// and, after a failed build, the error banner.
func (s *server) page(w http.ResponseWriter, r *http.Request) {
	p := path.Clean("/" + r.URL.Path)
	if strings.HasSuffix(r.URL.Path, "/") {
		p = path.Join(p, "index.html")
	}
	s.mu.Lock()
	failure, built := s.failure, s.built
	s.mu.Unlock()
	w.Header().Set("Cache-Control", "no-store")
	if !strings.HasSuffix(p, ".html") {
		if !built {
			http.NotFound(w, r)
			return
		}
		http.ServeFile(w, r, filepath.Join(s.out, filepath.FromSlash(p)))
		return
	}
	var page []byte
	if built {
		b, err := os.ReadFile(filepath.Join(s.out, filepath.FromSlash(p)))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		page = b
	} else {
		page = []byte("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Build failed</title><link rel=\"stylesheet\" href=\"/assets/site.css\"></head><body><main><h1>The site could not be built</h1></main></body></html>\n")
	}
	page = bytes.Replace(page, []byte("</head>"), []byte("<script src=\"/_retryspec/live.js\" defer></script>\n</head>"), 1)
	if failure != "" {
		banner := "<div class=\"build-error\" role=\"alert\"><strong>The last edit broke the build; this page is from the last good build.</strong>\n" + html.EscapeString(failure) + "</div>\n"
		if i := bytes.Index(page, []byte("<body>")); i >= 0 {
			i += len("<body>")
			page = append(page[:i:i], append([]byte("\n"+banner), page[i:]...)...)
		}
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(page)
}

// browserURL is the address to open in a browser: a server listening on
// every interface (0.0.0.0, ::) is reached on this machine at loopback;
// "http://0.0.0.0:8080/" is not an address a browser can open everywhere.
func browserURL(a net.Addr) string {
	host, port, err := net.SplitHostPort(a.String())
	if err != nil {
		return "http://" + a.String() + "/"
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		if ip.To4() != nil {
			host = "127.0.0.1"
		} else {
			host = "::1"
		}
	}
	return "http://" + net.JoinHostPort(host, port) + "/"
}
