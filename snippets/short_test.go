package snippets

import (
	"bytes"
	"io/fs"
	"strconv"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/contract"
)

// TestShortForms: each language's short form is 5 to 15 lines, carries
// the contract's figures (attempts, total bound, base, cap) and names the
// function its full program defines, so the two cannot drift apart
// silently; the example key is quoted by the language's own quoting.
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
		// A short form that shows the call (Java's shows the library's
		// configuration instead) passes the key as the language's literal.
		tmpl, err := fs.ReadFile(templateFS, "templates/short/"+l.template)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(tmpl, []byte(".Example")) && !strings.Contains(s, l.quote(`pay-"x"\n$(id)`)) {
			t.Errorf("%s: the example key is not quoted by the language's quoting:\n%s", l.Name, s)
		}
	}
}
