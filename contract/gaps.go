package contract

// Issue 32 added fields for the docs, the OpenAPI additions and the
// snippets before the server half acted on them. Each consumer that does
// not act on a field yet refuses a contract that sets it and names the
// field: serving such a contract would answer by rules it does not state,
// and verifying one would judge a sound server (or client) by requests it
// refuses. Each consumer has its own list, so one catching up does not
// silently let the others through.

// MiddlewareGaps names the fields of c that the Go middleware
// (idempotency.New) does not act on: it reads a body key, enforces a
// first-sent window and sends the result header, and stays HTTP-only by
// design, so only a GraphQL contract is refused.
func (c *Contract) MiddlewareGaps() []string {
	var gaps []string
	if c.Idempotency.InGraphQL() {
		gaps = append(gaps, gapGraphQL)
	}
	return gaps
}

// VerifyGaps names the fields of c that `retryspec verify` does not send
// or judge: it sends a body key at key_field, a first-sent time with every
// key and a GraphQL mutation with the key where idempotency.graphql puts
// it, and judges too_old, the result header (verify/too-old,
// verify/result-header) and a conflict reported as a code in a 200, so
// nothing is refused today. The list stays for the next field verify
// does not act on at once.
func (c *Contract) VerifyGaps() []string {
	return nil
}

// ClientGaps names the fields of c that `retryspec verify client` does not
// judge yet: a client run against such a contract could pass without doing
// what it asks. Its fault server reads a body key at key_field and its
// gates judge the first-sent header (client/first-sent); the result header
// is the server's to send, so only a GraphQL contract is refused: the
// fault server answers HTTP statuses, not a 200 with error entries.
func (c *Contract) ClientGaps() []string {
	var gaps []string
	if c.Idempotency.InGraphQL() {
		gaps = append(gaps, gapGraphQL)
	}
	return gaps
}

const (
	// The middleware stays HTTP-only: it wraps an http.Handler per route
	// and answers conflicts with statuses, while a GraphQL API serves every
	// mutation on one path and reports conflicts as error entries in a 200.
	gapGraphQL = "idempotency.key_in: graphql (the key in a GraphQL mutation, conflicts as error entries in a 200)"
)
