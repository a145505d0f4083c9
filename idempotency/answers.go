package idempotency

import (
	"net/http"
	"strconv"

	"github.com/retryspec/retryspec/contract"
)

// reply writes an answer the middleware gives itself (a conflict, a
// refused key, a store failure) with the status, code, message and body
// contract.Reply renders: the bytes the docs and the OpenAPI additions
// show for the same contract.
//
// Every answer reply writes is to a request on a keyed endpoint, so it
// carries the contract's result header (result_header), with the value
// contract.ResultValue gives its kind: the function the pages and the
// OpenAPI additions show it from.
func (m *Middleware) reply(w http.ResponseWriter, k contract.ReplyKind) {
	if v := m.c.ResultValue(k); v != "" {
		w.Header().Set(m.c.Idempotency.ResultHeader.Name, v)
	}
	writeReply(w, m.c.Reply(k))
}

func writeReply(w http.ResponseWriter, r contract.Reply) {
	b := r.Bytes()
	switch r.Kind {
	case contract.ReplyInFlight, contract.ReplyInFlightAccepted, contract.ReplyStoreUnavailable:
		// Each says "retry with the same key": say when.
		w.Header().Set("Retry-After", "1")
	}
	w.Header().Set("Content-Type", r.ContentType)
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(r.Status)
	_, _ = w.Write(b)
}
