package render

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strings"

	"github.com/retryspec/retryspec/contract"
)

// sampleKey is the key the Idempotent requests page's example request
// carries: a UUID v4, the form a client mints once per operation.
const sampleKey = "8e03978e-40d5-43e8-bc93-6894a57f9324"

// exampleRequest is the HTTP request the Idempotent requests page shows:
// the endpoint the snippets call, with the contract's example body (or the
// OpenAPI spec's, or the placeholder check reports) and path values, the
// key in the contract's place and form (a header, or the body member). "" when no endpoint takes a key.
func exampleRequest(c *contract.Contract) string {
	ep, ok := c.FirstRequiredKeyEndpoint()
	if !ok {
		return ""
	}
	host, prefix := c.API.BaseURL, ""
	if u, err := url.Parse(c.API.BaseURL); err == nil && u.Host != "" {
		host, prefix = u.Host, strings.TrimSuffix(u.EscapedPath(), "/")
	}
	header := c.Idempotency.Header
	if header == "" {
		header = "Idempotency-Key"
	}
	key := sampleKey
	if c.Idempotency.HeaderValue == contract.HeaderSFString {
		key = `"` + key + `"`
	}
	body, _ := ep.ExampleBody()
	body = c.Idempotency.WithKey(c.Idempotency.WithoutKey(body), sampleKey)
	var indented bytes.Buffer
	if err := json.Indent(&indented, []byte(body.String()), "", "  "); err != nil {
		indented.Reset()
		indented.WriteString(body.String())
	}
	var b strings.Builder
	b.WriteString(ep.Method + " " + prefix + ep.ExamplePath() + " HTTP/1.1\n")
	b.WriteString("Host: " + host + "\n")
	b.WriteString("Content-Type: application/json\n")
	if !c.Idempotency.InBody() {
		b.WriteString(header + ": " + key + "\n")
	}
	if fs := c.Idempotency.FirstSent; fs.Set() && fs.Header != "" {
		b.WriteString(fs.Header + ": " + contract.FirstSentExample + "\n")
	}
	b.WriteString("\n")
	b.WriteString(indented.String() + "\n")
	return b.String()
}
