package openapi

import (
	"fmt"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/contract"
)

// TestSpeakeasyKeepsCautiousExceptions (issue 15 item 11): with
// `statuses: [429, 5XX]` and `cautious_statuses: [500]`, Speakeasy (which
// cannot retry "at most once") must not retry 500 on every attempt.
func TestSpeakeasyKeepsCautiousExceptions(t *testing.T) {
	c, err := contract.Parse("retryspec.yaml", []byte(`retryspec: 1
api: { name: Acme, base_url: "https://api.acme.example" }
idempotency: { stored_failures: replay }
retry: { statuses: [429, 5XX], cautious_statuses: [500] }
`))
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(SpeakeasyRetries(c))
	if !strings.Contains(got, "429 501 502 503 504") || strings.Contains(got, "500") || strings.Contains(got, "5XX") {
		t.Errorf("x-speakeasy-retries = %s", got)
	}
}
