package contract

import (
	"fmt"
	"strings"
)

// SameRequest says in words what makes a retry "the same request" as the
// first one under this contract's fingerprint: the one sentence the
// Idempotent requests page and the OpenAPI description both show, and the
// middleware's fingerprint (idempotency/fingerprint.go) computes.
func (id Idempotency) SameRequest() string {
	if id.Fingerprint == FingerprintNone {
		return "The server does not compare a retry with the first request: any request with the key gets the first request's result."
	}
	var b strings.Builder
	b.WriteString("A retry is the same request when its method, path, query string and body match the first request's")
	if id.Fingerprint == FingerprintCanonicalJSON {
		b.WriteString(" (a JSON body is compared as JSON: the order of its keys and whitespace between tokens do not count)")
	} else {
		b.WriteString(" byte for byte")
	}
	if len(id.FingerprintHeaders) > 0 {
		fmt.Fprintf(&b, ", and so do its %s %s", strings.Join(id.FingerprintHeaders, ", "), plural(len(id.FingerprintHeaders), "header", "headers"))
	}
	b.WriteString("; any other request with the key gets the payload-mismatch conflict.")
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
