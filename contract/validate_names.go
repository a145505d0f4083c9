package contract

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Grammars for names that reach generated code, markup or HTTP messages.
// Validating them at load time is the first of two defences; every renderer
// still escapes for its own target. They are byte loops rather than
// regular expressions because a 5,000-endpoint contract runs them tens of
// thousands of times.

// isTchar reports an RFC 9110 section 5.6.2 token character.
func isTchar(c byte) bool {
	return isAlnum(c) || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// headerToken: an RFC 9110 token of 1-128 characters.
func headerToken(s string) bool {
	if len(s) == 0 || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isTchar(s[i]) {
			return false
		}
	}
	return true
}

// codeName: [a-z][a-z0-9_]{0,63}, for identifiers that become code
// constants and anchors (external calls, recovery points).
func codeName(s string) bool {
	if len(s) == 0 || len(s) > 64 || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// errorCodeName: [A-Za-z][A-Za-z0-9_.-]{0,63}, for the error codes an API
// sends, in the case it publishes them (Square's and Shopify's are upper
// case: IDEMPOTENCY_KEY_REUSED). Every output compares a code exactly, as
// the API sends it. No character of it is special in HTML, Markdown code
// spans, JSON, a shell word or a string literal of a snippet language, and
// every renderer still quotes or escapes it for its own target.
func errorCodeName(s string) bool {
	if len(s) == 0 || len(s) > 64 || !(s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z') {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !isAlnum(c) && c != '_' && c != '.' && c != '-' {
			return false
		}
	}
	return true
}

// pathTemplate: "/" then RFC 3986 path characters minus the quote-like and
// shell-active ones, plus {param} templates.
func pathTemplate(s string) bool {
	if len(s) == 0 || s[0] != '/' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !isAlnum(c) && strings.IndexByte("-._~/{}:@%+,=", c) < 0 {
			return false
		}
	}
	return true
}

// paramName: [A-Za-z_][A-Za-z0-9_.-]{0,63}.
func paramName(s string) bool {
	if len(s) == 0 || len(s) > 64 || !(isAlnum(s[0]) && (s[0] < '0' || s[0] > '9') || s[0] == '_') {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !isAlnum(c) && c != '_' && c != '.' && c != '-' {
			return false
		}
	}
	return true
}

// pathParams returns the names inside {braces} of a balanced path.
func pathParams(path string) []string {
	var out []string
	for {
		i := strings.IndexByte(path, '{')
		if i < 0 {
			return out
		}
		j := strings.IndexByte(path[i:], '}')
		if j < 0 {
			return out
		}
		out = append(out, path[i+1:i+j])
		path = path[i+j+1:]
	}
}

// HTTPMethods are the methods an endpoint may use.
var HTTPMethods = []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", MethodQuery}

// MethodQuery is the HTTP QUERY method (draft-ietf-httpbis-safe-method-w-body):
// a safe, idempotent request with a body, as a GET whose query does not fit
// in the URL. It never takes a key.
const MethodQuery = "QUERY"

func validHeader(s string) error {
	if headerToken(s) {
		return nil
	}
	if s == "" {
		return fmt.Errorf("header name is empty")
	}
	return fmt.Errorf("%q is not a valid HTTP header name: only letters, digits and !#$%%&'*+-.^_`|~ are allowed (RFC 9110 token)", s)
}

func validCode(s string) error {
	if codeName(s) {
		return nil
	}
	return fmt.Errorf("%q is not a valid identifier: use lower case letters, digits and underscores, starting with a letter (at most 64)", s)
}

func validErrorCode(s string) error {
	if errorCodeName(s) {
		return nil
	}
	return fmt.Errorf("%q is not a valid error code: use letters, digits, _, . and -, starting with a letter (at most 64), in the case the API sends it", s)
}

// ParseOperation splits "POST /v1/orders/{id}" into method and path and
// validates both.
func ParseOperation(s string) (method, path string, err error) {
	fields := strings.Fields(s)
	if len(fields) != 2 || strings.ContainsAny(s, "\t\r\n") {
		return "", "", fmt.Errorf("%q is not an operation: write METHOD /path, e.g. \"POST /v1/orders\"", s)
	}
	method = strings.ToUpper(fields[0])
	known := false
	for _, m := range HTTPMethods {
		if m == method {
			known = true
		}
	}
	if !known {
		return "", "", fmt.Errorf("%q: unknown HTTP method %q (one of %s)", s, fields[0], strings.Join(HTTPMethods, ", "))
	}
	path = fields[1]
	if !pathTemplate(path) {
		return "", "", fmt.Errorf("%q: path %q must start with / and use only letters, digits, -._~/:@%%+,= and {param} templates", s, path)
	}
	for _, seg := range strings.Split(path, "/") {
		// A client normalizes dot segments away, so the request would go to
		// another path than the one documented; a renderer that derives a
		// file name from the path must never see one either.
		if seg == "." || seg == ".." {
			return "", "", fmt.Errorf("%q: path %q has a %q segment; write the path as the server routes it", s, path, seg)
		}
	}
	depth := 0
	for _, r := range path {
		switch r {
		case '{':
			depth++
		case '}':
			depth--
		}
		if depth < 0 || depth > 1 {
			return "", "", fmt.Errorf("%q: unbalanced braces in path", s)
		}
	}
	if depth != 0 {
		return "", "", fmt.Errorf("%q: unbalanced braces in path", s)
	}
	for _, name := range pathParams(path) {
		if !paramName(name) {
			return "", "", fmt.Errorf("%q: path parameter {%s} must be a name like {id} or {order_id}", s, name)
		}
	}
	return method, path, nil
}

func validBaseURL(s string) error {
	if strings.ContainsAny(s, " \t\r\n\"'<>`\\{}|^") {
		return fmt.Errorf("%q is not a valid base URL: it contains a space, quote or markup character", s)
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return fmt.Errorf("%q is not an absolute http(s) URL like https://api.example.com", s)
	}
	if u.User != nil {
		return fmt.Errorf("%q carries credentials; keep secrets out of the contract", s)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("%q has a query or fragment; give the base URL only", s)
	}
	return nil
}

// validText accepts one line of prose of at most max runes: no control
// characters, so it cannot break out of a comment, a string literal or a
// table cell in any generated file.
func validText(s string, max int) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("text is not valid UTF-8")
	}
	if n := utf8.RuneCountInString(s); n > max {
		return fmt.Errorf("text is %d characters long; at most %d are allowed", n, max)
	}
	for _, r := range s {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return fmt.Errorf("text contains a control character or line break (%U); keep it to one line", r)
		}
	}
	return nil
}

// validLocalPath accepts a path (or glob) that stays inside the contract's
// folder: not absolute, no .. that climbs out of it. The contract arrives in
// pull requests, and CI must not read or write elsewhere because of it.
func validLocalPath(s string) error {
	if strings.Contains(s, "\\") {
		return fmt.Errorf("%q contains a backslash; write paths with /", s)
	}
	if !filepath.IsLocal(filepath.FromSlash(s)) {
		return fmt.Errorf("%q leaves the contract's folder (an absolute path or one climbing out with ..)", s)
	}
	return nil
}
