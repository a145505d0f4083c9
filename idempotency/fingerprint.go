package idempotency

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"

	"github.com/retryspec/retryspec/contract"
)

// fingerprint is sha256 over what the contract counts as "the same
// request" (contract.Idempotency.SameRequest says it in words): the
// method, the request target (path and query), the contract's
// fingerprint_headers, and the part of the body that counts
// (contract.Idempotency.FingerprintBody: byte for byte, or canonical JSON
// with fingerprint_fields applied). The same key on another endpoint or
// with another request is a mismatch. Without headers and fields, the sum
// is the one every earlier release stored, so keys in flight across an
// upgrade still match (TestFingerprintIsStable).
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
	h.Write(id.FingerprintBody(body))
	var sum [sha256.Size]byte
	return hex.EncodeToString(h.Sum(sum[:0]))
}
