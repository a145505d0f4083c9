package diff

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/retryspec/retryspec/contract"
)

// Changelog writes the body of the site's Changelog page as Markdown, for
// integrators: one section per date, newest first, with the contract's
// changes as Compare classes them, breaking first. Each change is one list
// item on one line: the field, old and new value, why it matters and, for
// a breaking change, what an integrator must do. Commit subjects, hashes,
// authors and the contract's acknowledgement reasons (notes between the
// API team and its own CI) never appear; revisions that did not load or
// changed nothing an integrator can observe are left out. Contract strings
// are escaped as in the markdown format, so the result is safe to render
// to HTML. Output depends only on its inputs: dates come from the commits,
// not the clock.
//
// A changelog quotes the values of earlier revisions by nature ("keys are
// remembered for 24h instead of 48h"), so copy/contradicts-contract does
// not apply to it: a build that lints its own pages must leave that rule
// out for this page, or it fails on every change it reports.
func Changelog(w io.Writer, c *contract.Contract, revs []Revision) error {
	var b strings.Builder
	type day struct {
		date      string
		published []string // endpoints, when the contract first appeared
		first     bool
		changes   []Change
	}
	var days []*day
	for _, r := range revs {
		if r.Invalid != "" || (!r.First && len(r.Changes) == 0) {
			continue
		}
		date, _, _ := strings.Cut(r.Date, "T")
		if len(days) == 0 || days[len(days)-1].date != date {
			days = append(days, &day{date: date})
		}
		d := days[len(days)-1]
		if r.First {
			d.first = true
			for _, ch := range r.Changes {
				if ch.Endpoint != "" {
					d.published = append(d.published, code(ch.Endpoint))
				}
			}
			continue
		}
		for _, ch := range r.Changes {
			// The edit to the changes: list itself is not news for integrators.
			if ch.Row != "changes" {
				d.changes = append(d.changes, ch)
			}
		}
	}
	if len(days) == 0 {
		b.WriteString("No earlier version of the contract is recorded yet: changes will be listed here, breaking changes first, from the next published revision on.\n")
		_, err := io.WriteString(w, b.String())
		return err
	}
	for i, d := range days {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "## %s\n", mdEscape(d.date))
		if len(d.changes) > 0 {
			sort.SliceStable(d.changes, func(i, j int) bool { return d.changes[i].Class > d.changes[j].Class })
			writeChangelogGroups(&b, d.changes)
		}
		if d.first {
			b.WriteString("\nThe contract was published.")
			if len(d.published) > 0 {
				fmt.Fprintf(&b, " Endpoints: %s.", strings.Join(d.published, ", "))
			}
			b.WriteString("\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// changelogTitles head each class's list, in integrator terms.
var changelogTitles = map[Class]string{
	Breaking:   "Breaking: change your code",
	Notable:    "Notable: worth knowing",
	Compatible: "Compatible: nothing to do",
}

// writeChangelogGroups writes one list per class, worst first, each change
// on its own line.
func writeChangelogGroups(b *strings.Builder, changes []Change) {
	for _, class := range Classes {
		first := true
		for _, c := range changes {
			if c.Class != class {
				continue
			}
			if first {
				fmt.Fprintf(b, "\n### %s\n\n", changelogTitles[class])
				first = false
			}
			field := code(c.Field)
			if c.Field == "" {
				field = "The contract"
			}
			if c.Endpoint != "" {
				field += " (" + code(c.Endpoint) + ")"
			}
			fmt.Fprintf(b, "- %s: %s → %s. %s", field, code(show(c.Old)), code(show(c.New)), markdownText(c.Why, c.whyTmpl, c))
			switch {
			case c.Migration != "":
				fmt.Fprintf(b, " **What to do:** %s", markdownText(c.Migration, c.migrationTmpl, c))
			case class == Breaking:
				b.WriteString(" **What to do:** check your retry and idempotency code against the new value before you upgrade.")
			}
			b.WriteString("\n")
		}
	}
}
