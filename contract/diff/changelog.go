package diff

import (
	"fmt"
	"io"
	"strings"

	"github.com/retryspec/retryspec/contract"
)

// Changelog writes the body of the site's Changelog page as Markdown: one
// section per revision of the contract, newest first, with its classified
// changes (breaking first, each with its migration note and, when the
// contract acknowledged it, the reason). Without history (not a git
// repository, or nothing committed yet) it lists the acknowledgements the
// contract records. Contract strings are escaped as in the markdown format,
// so the result is safe to render to HTML. Output depends only on its
// inputs: commit dates come from the commits, not the clock.
//
// A changelog quotes the values of earlier revisions by nature ("keys are
// remembered for 24h instead of 48h"), so copy/contradicts-contract does
// not apply to it: a build that lints its own pages must leave that rule
// out for this page, or it fails on every change it reports.
func Changelog(w io.Writer, c *contract.Contract, revs []Revision) error {
	var b strings.Builder
	if len(revs) == 0 {
		b.WriteString("No history of the contract is available: it is not committed to a git repository yet.\n")
		if c != nil && len(c.Changes) > 0 {
			b.WriteString("\n## Acknowledged changes\n\n")
			for _, a := range c.Changes {
				fmt.Fprintf(&b, "- %s: %s\n", code(a.Field), mdEscape(sentence(a.Because)))
			}
		}
		_, err := io.WriteString(w, b.String())
		return err
	}
	for i, r := range revs {
		if i > 0 {
			b.WriteString("\n")
		}
		date, _, _ := strings.Cut(r.Date, "T")
		fmt.Fprintf(&b, "## %s: %s\n\n", mdEscape(date), mdEscape(r.Subject))
		fmt.Fprintf(&b, "Commit %s, %s.\n", code(r.Short()), code(r.Path))
		switch {
		case r.Invalid != "":
			fmt.Fprintf(&b, "\nThis revision of the contract did not load, so it is skipped: %s\n", mdEscape(sentence(r.Invalid)))
		case r.First:
			b.WriteString("\nThe contract was published.")
			var eps []string
			for _, ch := range r.Changes {
				if ch.Endpoint != "" {
					eps = append(eps, code(ch.Endpoint))
				}
			}
			if len(eps) > 0 {
				fmt.Fprintf(&b, " Endpoints: %s.", strings.Join(eps, ", "))
			}
			b.WriteString("\n")
		case len(r.Changes) == 0:
			b.WriteString("\nNo change to the contract's meaning (formatting or comments only).\n")
		default:
			// Acknowledgements show beside the changes they acknowledge; the
			// edit to the changes: list itself is not news for integrators.
			var shown []Change
			for _, ch := range r.Changes {
				if ch.Row != "changes" {
					shown = append(shown, ch)
				}
			}
			fmt.Fprintf(&b, "\n%s\n", mdEscape(sentence(countLine(shown, false))))
			writeGroups(&b, shown, "###", false)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
