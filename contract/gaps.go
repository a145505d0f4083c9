package contract

// ServerGaps names the fields of c that the Go middleware and `retryspec
// verify` do not act on yet (issue 32 added them for the docs, the OpenAPI
// additions and the snippets first). Serving such a contract would answer
// by rules it does not state, and verifying one would judge a sound server
// by requests it refuses, so both refuse the contract and name these.
func (c *Contract) ServerGaps() []string {
	gaps := c.ClientGaps()
	if c.Idempotency.ResultHeader.Set() {
		gaps = append(gaps, "idempotency.result_header (a header that reports the result)")
	}
	return gaps
}

// ClientGaps names the fields of c that `retryspec verify client` does not
// judge yet: a client run against such a contract could pass without doing
// what it asks, so verify client refuses the contract and names these.
func (c *Contract) ClientGaps() []string {
	var gaps []string
	if c.Idempotency.InBody() {
		gaps = append(gaps, "idempotency.key_in: body (the key in the JSON request body)")
	}
	if c.Idempotency.FirstSent.Set() {
		gaps = append(gaps, "idempotency.first_sent (a window measured from the client's first-sent time)")
	}
	return gaps
}
