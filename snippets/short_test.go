package snippets

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/contract"
)

// TestShortForms: each language's short form is 5 to 15 lines, carries
// the contract's figures (attempts, total bound, base, cap) and names the
// function its full program defines, so the two cannot drift apart
// silently; the body is the contract's example and the key is minted per call.
func TestShortForms(t *testing.T) {
	c, err := contract.Load("../examples/payouts/retryspec.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c.Idempotency.Derivation = append([]contract.Derivation{{Kind: "event-derived", Example: `pay-"x"\n$(id)`}}, c.Idempotency.Derivation...)
	p, err := NewPolicy(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range Languages() {
		short, err := Short(c, l.Name)
		if err != nil {
			t.Fatal(err)
		}
		if n := bytes.Count(short, []byte("\n")); n < 5 || n > 15 {
			t.Errorf("%s: %d lines, want 5 to 15:\n%s", l.Name, n, short)
		}
		s := string(short)
		if !strings.Contains(s, strconv.Itoa(p.MaxAttempts)) || !strings.Contains(s, strconv.FormatInt(Millis(p.Cap), 10)) && !strings.Contains(s, strconv.FormatInt(Millis(p.Cap)/1000, 10)) {
			t.Errorf("%s: the short form lacks the contract's figures:\n%s", l.Name, s)
		}
		full, err := Render(c, l.Name)
		if err != nil {
			t.Fatal(err)
		}
		for _, fn := range []string{"post_with_retries", "postWithRetries", "Retrying(", "RetryConfig"} {
			if strings.Contains(s, fn) && !bytes.Contains(full, []byte(fn)) {
				t.Errorf("%s: the short form calls %s, which its full program does not define", l.Name, fn)
			}
		}
		// Every short form sends the contract's example body as the
		// language's literal, and a key minted in code by the expression
		// its full program mints keys with: never the derivation's
		// example as a constant, which would send one key for every call.
		if body := literals[l.literal].literal(p.Body, l.quote); !strings.Contains(s, body) || !bytes.Contains(full, []byte(body)) {
			t.Errorf("%s: the short form or the full program lacks the example body %s:\n%s", l.Name, body, s)
		}
		if l.newKey == "" || !strings.Contains(s, l.newKey) || !bytes.Contains(full, []byte(l.newKey)) {
			t.Errorf("%s: the short form does not mint its key with %q as its full program does:\n%s", l.Name, l.newKey, s)
		}
		if strings.Contains(s, l.quote(`pay-"x"\n$(id)`)) {
			t.Errorf("%s: the short form sends the derivation's example as a constant key:\n%s", l.Name, s)
		}
	}
}

// TestShortSaysAcceptedIsPolled: under in_flight.response: accepted every
// short form says the in-flight 202 is polled, as its full program does.
func TestShortSaysAcceptedIsPolled(t *testing.T) {
	c := loadExample(t)
	c.Idempotency.InFlight.Response = contract.InFlightAccepted
	for _, l := range Languages() {
		short, err := Short(c, l.Name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(short, []byte("the in-flight 202 polled until the result")) {
			t.Errorf("%s: the short form does not say the in-flight 202 is polled:\n%s", l.Name, short)
		}
	}
}

// TestGraphQLShortForms: a GraphQL contract's short forms send the
// mutation's request (the document with its arguments) and, where they
// say what is retried, say which error entries of a 200 are.
func TestGraphQLShortForms(t *testing.T) {
	c, err := contract.Load(examplePath(t, "shopify-inventory"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPolicy(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range Languages() {
		short, err := Short(c, l.Name)
		if err != nil {
			t.Fatal(err)
		}
		s := string(short)
		if !strings.Contains(s, literals[l.literal].literal(p.Body, l.quote)) {
			t.Errorf("%s: the short form does not send the mutation's request:\n%s", l.Name, s)
		}
		if !strings.Contains(s, "the in-flight error entry retried, any other entry not") {
			t.Errorf("%s: the short form does not say which error entries are retried:\n%s", l.Name, s)
		}
	}
	all, also := retriedText(p)
	for _, s := range []string{all, also} {
		if !strings.Contains(s, "; in a 200, the in-flight error entry retried, any other entry not") {
			t.Errorf("retried text %q lacks the error entries", s)
		}
	}
}
