package verify

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"
)

// Request is one request verify sends, kept for the reproduction.
type Request struct {
	Method string
	URL    string
	// Headers in send order; Secret marks values from the plan.
	Headers []sentHeader
	Body    []byte
}

type sentHeader struct {
	Name, Value string
	Secret      bool
	// Shown is the value as the plan wrote it, with ${VAR} references:
	// the reproduction prints those, so it runs where the variables are
	// set and never shows their values.
	Shown string
}

// Response is what came back (Err set when nothing did).
type Response struct {
	Status int
	Header http.Header
	// Body is the first maxBody bytes; BodyLen and BodySum cover the whole
	// body, so two bodies that differ past maxBody still differ.
	Body    []byte
	BodyLen int64
	BodySum [sha256.Size]byte
	Err     error
	Started time.Time
}

// maxBody is how much of a body verify keeps for messages and JSON
// reads; maxHeader bounds a response's status line and headers, so a
// server that streams headers for ever costs verify at most that much.
const (
	maxBody   = 1 << 20
	maxHeader = 1 << 20
)

// readBody reads a whole body (bounded in time by the request's deadline,
// not in length), keeping its first maxBody bytes and a digest of all of it.
func readBody(r io.Reader) ([]byte, int64, [sha256.Size]byte, error) {
	h := sha256.New()
	var kept bytes.Buffer
	n, err := io.Copy(io.MultiWriter(h, &capWriter{buf: &kept, max: maxBody}), r)
	var sum [sha256.Size]byte
	copy(sum[:], h.Sum(nil))
	return kept.Bytes(), n, sum, err
}

// capWriter keeps the first max bytes written and drops the rest.
type capWriter struct {
	buf *bytes.Buffer
	max int
}

func (w *capWriter) Write(p []byte) (int, error) {
	if room := w.max - w.buf.Len(); room > 0 {
		w.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// SameBody reports whether two responses carried the same bytes, over
// their whole bodies.
func (resp Response) SameBody(o Response) bool {
	return resp.BodyLen == o.BodyLen && resp.BodySum == o.BodySum
}

// Curl renders r as a curl command. Header values from the plan print as
// ***; everything is single-quoted for a POSIX shell.
func (r Request) Curl() string {
	var b strings.Builder
	b.WriteString("curl -sS -i")
	if r.Method != http.MethodGet {
		b.WriteString(" -X " + r.Method)
	}
	b.WriteString(" " + shellQuote(r.URL))
	for _, h := range r.Headers {
		switch {
		case h.Shown != "":
			b.WriteString(" -H " + shellWithVars(h.Name+": "+h.Shown))
		case h.Secret:
			b.WriteString(" -H " + shellQuote(h.Name+": ***"))
		default:
			b.WriteString(" -H " + shellQuote(h.Name+": "+h.Value))
		}
	}
	if r.Body != nil {
		b.WriteString(" --data-raw " + shellQuote(string(r.Body)))
	}
	return b.String()
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// shellWithVars quotes s for a POSIX shell, leaving each ${VAR} to the
// shell: 'Authorization: Bearer '"${API_TOKEN}".
func shellWithVars(s string) string {
	var b strings.Builder
	last := 0
	for _, m := range varRef.FindAllStringIndex(s, -1) {
		if m[0] > last {
			b.WriteString(shellQuote(s[last:m[0]]))
		}
		b.WriteString(`"` + s[m[0]:m[1]] + `"`)
		last = m[1]
	}
	if last < len(s) || last == 0 {
		b.WriteString(shellQuote(s[last:]))
	}
	return b.String()
}

func (r Request) httpRequest(ctx context.Context) (*http.Request, error) {
	var body io.Reader
	if r.Body != nil {
		body = bytes.NewReader(r.Body)
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, r.URL, body)
	if err != nil {
		return nil, err
	}
	for _, h := range r.Headers {
		req.Header.Add(h.Name, h.Value)
	}
	return req, nil
}

// wire renders r as HTTP/1.1 bytes for the concurrency gate's raw connections.
func (r Request) wire() ([]byte, error) {
	u, err := url.Parse(r.URL)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: retryspec-verify\r\n", r.Method, u.RequestURI(), u.Host)
	for _, h := range r.Headers {
		fmt.Fprintf(&b, "%s: %s\r\n", h.Name, h.Value)
	}
	fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n", len(r.Body))
	b.Write(r.Body)
	return b.Bytes(), nil
}

// Describe is a one-line summary of a response for messages.
func (resp Response) Describe() string {
	if resp.Err != nil {
		return "no response (" + resp.Err.Error() + ")"
	}
	body := strings.TrimSpace(string(resp.Body))
	if len(body) > 200 {
		body = body[:200] + "…"
	}
	if body == "" {
		return fmt.Sprint(resp.Status)
	}
	return fmt.Sprintf("%d %s", resp.Status, body)
}

// redactor masks secret values wherever they appear as whole values in
// output (a server that echoes a token into a body, an error quoting a
// URL): an occurrence inside a longer word or number is left alone, so a
// short secret does not blank out unrelated text.
type redactor struct{ secrets []string }

func newRedactor(secrets []string) redactor {
	// Longest first, so a secret that contains another is masked whole.
	var s []string
	for _, v := range secrets {
		if v != "" && !slices.Contains(s, v) {
			s = append(s, v)
		}
	}
	sort.Slice(s, func(i, j int) bool { return len(s[i]) > len(s[j]) })
	return redactor{s}
}

func (r redactor) String(s string) string {
	for _, secret := range r.secrets {
		s = maskWhole(s, secret)
	}
	return s
}

// maskWhole replaces each occurrence of secret in s that is not part of a
// longer run of letters, digits, '_' or '-'.
func maskWhole(s, secret string) string {
	var b strings.Builder
	for from := 0; ; {
		i := strings.Index(s[from:], secret)
		if i < 0 {
			b.WriteString(s[from:])
			return b.String()
		}
		i += from
		end := i + len(secret)
		whole := (i == 0 || !wordByte(s[i-1]) || !wordByte(secret[0])) && (end == len(s) || !wordByte(s[end]) || !wordByte(secret[len(secret)-1]))
		b.WriteString(s[from:i])
		if whole {
			b.WriteString("***")
		} else {
			b.WriteString(secret)
		}
		from = end
	}
}

func wordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}
