package snippets

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/retryspec/retryspec/contract"
)

// Short renders the short form of a language's snippet for the Retrying
// page: the library call (or, without a library, the settings and the
// call) with the contract's figures, about ten lines a reader copies. The
// complete program behind it (Render) is the tested code; the short form
// names that program's functions and uses its figures, so the two agree.
// Each language's short form is templates/short/ under its full program's
// template name; contract strings go through the language's own quoting
// function (q), as in the full program.
func Short(c *contract.Contract, lang string) ([]byte, error) {
	p, err := NewPolicy(c)
	if err != nil {
		return nil, err
	}
	l, ok := LanguageNamed(lang)
	if !ok {
		return nil, fmt.Errorf("no snippet language %q; the languages are %s", lang, strings.Join(LanguageNames(), ", "))
	}
	return l.short(newShortData(p))
}

func (l Language) short(v shortData) ([]byte, error) {
	return l.execute("templates/short/"+l.template, v)
}

// shortData is what a short-form template sees: the policy, plus the
// sentences the short forms share. The key a short form passes is minted
// in code ({{newkey}}), once per logical request, never a literal: a
// constant would send one key for every request.
type shortData struct {
	Policy
	// Retried says what the allowlist retries; Also what it adds to the
	// list of statuses (see retriedText).
	Retried, Also string
}

func newShortData(p Policy) shortData {
	v := shortData{Policy: p}
	v.Retried, v.Also = retriedText(p)
	return v
}

// retriedText says what the allowlist retries, for a comment: all of it,
// and what it adds to the list of statuses.
func retriedText(p Policy) (all, also string) {
	var parts, extra []string
	if len(p.Statuses) > 0 {
		parts = append(parts, ints(p.Statuses))
	}
	for _, c := range p.StatusClasses {
		extra = append(extra, strconv.Itoa(c)+"xx")
	}
	if p.RetryTimeout || p.RetryReset || p.RetryRefused {
		extra = append(extra, "connection errors")
	}
	all = strings.Join(append(parts, extra...), ", ")
	also = "and " + strings.Join(extra, ", ")
	if len(extra) == 0 {
		also = "retried normally"
	}
	if len(p.Cautious) > 0 {
		all += "; " + ints(p.Cautious) + " at most once"
		also += "; " + ints(p.Cautious) + " at most once"
	}
	if p.GraphQL {
		// A GraphQL conflict is an error entry in a 200, not a status:
		// the short form says which entries the loop retries.
		entries := "; in a 200, the in-flight error entry retried, any other entry not"
		if !p.InFlight {
			entries = "; in a 200, no error entry retried"
		}
		all += entries
		also += entries
	}
	if p.InFlightAccepted {
		// A 2xx the loop does not return: the short form says so, as
		// the full program does.
		poll := "; the in-flight " + strconv.Itoa(p.InFlightStatus) + " polled until the result"
		all += poll
		also += poll
	}
	return all, also
}

func ints(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}
