package idempotency

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/retryspec/retryspec/contract"
)

// fingerprint is sha256 over what the contract counts as "the same
// request" (contract.Idempotency.SameRequest says it in words): the
// method, the request target (path and query), the contract's
// fingerprint_headers, and the body, byte for byte or, under
// fingerprint: canonical-json, as canonical JSON. The same key on another
// endpoint or with another request is a mismatch. Without headers and
// with the strict default, the sum is the one every earlier release
// stored, so keys in flight across an upgrade still match.
func fingerprint(id contract.Idempotency, r *http.Request, body []byte) string {
	uri := r.URL.RequestURI()
	line := make([]byte, 0, len(r.Method)+len(uri)+2)
	line = append(append(append(append(line, r.Method...), ' '), uri...), '\n')
	h := sha256.New()
	h.Write(line)
	for _, name := range id.FingerprintHeaders {
		// Name and value, each line-terminated: a header cannot pass for
		// another or for the body.
		h.Write([]byte(http.CanonicalHeaderKey(name) + ": " + strings.Join(r.Header.Values(name), ",") + "\n"))
	}
	if id.Fingerprint == contract.FingerprintCanonicalJSON {
		body = canonicalJSON(body)
	}
	h.Write(body)
	var sum [sha256.Size]byte
	return hex.EncodeToString(h.Sum(sum[:0]))
}

// canonicalJSON re-encodes a JSON body with its object keys sorted and no
// insignificant whitespace; numbers keep their literal text. A body that is
// not one JSON value is compared byte for byte.
func canonicalJSON(body []byte) []byte {
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil || d.More() {
		return body
	}
	if _, err := d.Token(); err == nil {
		return body // trailing data after the value
	}
	// A body kept as it is is not JSON, so it never equals a canonical one.
	out, err := json.Marshal(v)
	if err != nil {
		return body
	}
	return out
}
