package cli

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/contract/rules"
	"github.com/retryspec/retryspec/verify/client"
)

type explainOptions struct {
	IO   *IO
	List bool
	ID   string
}

func newExplainCmd(sys *IO, runF func(context.Context, *explainOptions) error) *cobra.Command {
	opts := &explainOptions{IO: sys}
	cmd := &cobra.Command{
		Use:   "explain RULE | explain --list",
		Short: "Print a rule's summary, rationale with sources, fix and examples",
		Args: func(cmd *cobra.Command, args []string) error {
			switch {
			case opts.List && len(args) > 0:
				return usageErrorf("explain takes a rule ID or --list, not both")
			case !opts.List && len(args) != 1:
				return usageErrorf("explain needs one rule ID, e.g. `retryspec explain window/shorter-than-retry-chain`; `retryspec explain --list` lists them")
			}
			return nil
		},
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return append(rules.IDs(), client.IDs()...), cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.ID = args[0]
			}
			return runCommand(cmd.Context(), sys, defaultMemory, opts, runF, runExplain)
		},
	}
	cmd.Flags().BoolVar(&opts.List, "list", false, "list every rule with its severity")
	return cmd
}

func runExplain(_ context.Context, opts *explainOptions) error {
	sys := opts.IO
	if opts.List {
		return listRules(sys.Out)
	}
	r, ok := rules.ByID(opts.ID)
	if !ok {
		r, ok = client.RuleByID(opts.ID)
	}
	if !ok {
		id := opts.ID
		if len(id) > 100 { // echo a pasted blob as one readable line
			id = strings.ToValidUTF8(id[:80], "") + "…"
		}
		if s := contract.DidYouMean(opts.ID, append(rules.IDs(), client.IDs()...)); s != "" {
			return usageErrorf("unknown rule %q; did you mean %s?", id, s)
		}
		return usageErrorf("unknown rule %q; `retryspec explain --list` lists every rule", id)
	}
	return explainRule(sys.Out, r)
}

// listRules prints one rule per line: ID, default severity, what it reads
// and its summary, the catalog's rules then verify client's gates. IDs are
// printed bare so scripts can grep them.
func listRules(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, r := range append(rules.Catalog(), client.Rules()...) {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.ID, r.SeverityText(), r.Scope, r.Summary)
	}
	return tw.Flush()
}

func explainRule(w io.Writer, r rules.Rule) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s, checked by `%s`)\n\n", r.ID, r.SeverityText(), scopeCommand(r.Scope))
	fmt.Fprintf(&b, "%s\n\n", wrap(upperFirst(r.Summary)+".", 78, ""))
	fmt.Fprintf(&b, "Why:\n%s\n\n", wrap(r.Rationale, 78, "  "))
	if len(r.Sources) > 0 {
		b.WriteString("Sources:\n")
		for _, s := range r.Sources {
			fmt.Fprintf(&b, "  - %s\n    %s\n", s.Title, s.URL)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "Fix:\n%s\n\n", wrap(r.Fix, 78, "  "))
	bad, good := "Bad (fires the rule):", "Good (does not):"
	if r.Scope == rules.ScopeVerify || r.Scope == client.Scope {
		// Gate examples are exchanges with a server, or a plan fragment.
		bad, good = "Fails the gate:", "Holds:"
	}
	if r.Scope == rules.ScopeContract {
		// Contract examples are fragments laid over a sound contract.
		bad, good = "Bad, changed in a sound contract (fires the rule):", "Good (does not fire):"
		if yamlNull.MatchString(r.Bad) || yamlNull.MatchString(r.Good) {
			bad = "Bad, changed in a sound contract (fires the rule; ~ means left out):"
		}
	}
	fmt.Fprintf(&b, "%s\n%s\n", bad, indent(r.Bad, "  "))
	fmt.Fprintf(&b, "%s\n%s", good, indent(r.Good, "  "))
	_, err := io.WriteString(w, b.String())
	return err
}

// yamlNull finds a YAML ~ (null) value in an example.
var yamlNull = regexp.MustCompile(`(^|[\s:\[,{-])~($|[\s,\]}])`)

func scopeCommand(s rules.Scope) string {
	switch s {
	case rules.ScopeOpenAPI:
		return "retryspec check --openapi SPEC"
	case rules.ScopeCopy:
		return "retryspec copy"
	case rules.ScopeVerify:
		return "retryspec verify"
	case client.Scope:
		return "retryspec verify client"
	}
	return "retryspec check"
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// wrap fills text to width columns, each line prefixed.
func wrap(text string, width int, prefix string) string {
	var lines []string
	line := prefix
	for _, word := range strings.Fields(text) {
		if len(line) > len(prefix) && len(line)+1+len(word) > width {
			lines = append(lines, line)
			line = prefix
		}
		if len(line) > len(prefix) {
			line += " "
		}
		line += word
	}
	return strings.Join(append(lines, line), "\n")
}

func indent(text, prefix string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(strings.TrimRight(text, "\n")+"\n", "\n") {
		if l != "" {
			b.WriteString(prefix + l)
		}
	}
	return b.String()
}
