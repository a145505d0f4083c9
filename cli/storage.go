package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/contract/rules"
	"github.com/retryspec/retryspec/findings"
	"github.com/retryspec/retryspec/internal/safeout"
	"github.com/retryspec/retryspec/storage"
)

type storageOptions struct {
	IO       *IO
	Contract string
	Dialect  storage.Dialect
	Out      string
}

func newStorageCmd(sys *IO, runF func(context.Context, *storageOptions) error) *cobra.Command {
	opts := &storageOptions{IO: sys}
	var dialect string
	cmd := &cobra.Command{
		Use:   "storage [-c FILE] --dialect postgres|mysql|sqlite [--out DIR]",
		Short: "Print the idempotency key table and its claim statements as SQL",
		Long: "Print the DDL of the idempotency key table and the statements a server needs\n" +
			"(Claim, Lookup, Takeover, Checkpoint, Complete, Release, Expire, Reap, Stale), each\n" +
			"under a `-- name: X :kind` line (the sqlc and yesql convention) with a comment naming\n" +
			"the contract fields it comes from. --out DIR writes two files instead, as sqlc reads\n" +
			"them: DIR/<dialect>.schema.sql, the DDL alone (apply it with psql -f or a migration\n" +
			"tool), and DIR/<dialect>.queries.sql, the named statements.\n" +
			"The Go idempotency package runs exactly these statements.\n\n" +
			"Exit status: 0 on success, 1 when the contract's claim design is flawed (claim/*\n" +
			"errors: no SQL is written, the findings are printed), 2 on unreadable input or a\n" +
			"wrong command line.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if dialect == "" {
				return usageErrorf("--dialect is required (one of %s)", strings.Join(dialectNames(), ", "))
			}
			d, err := storage.ParseDialect(dialect)
			if err != nil {
				return usageErrorf("unknown --dialect %q (one of %s)", dialect, strings.Join(dialectNames(), ", "))
			}
			opts.Dialect = d
			return runCommand(cmd.Context(), sys, defaultMemory, opts, runF, runStorage)
		},
	}
	cmd.Flags().StringVarP(&opts.Contract, "contract", "c", "retryspec.yaml", "the contract `FILE`")
	cmd.Flags().StringVar(&dialect, "dialect", "", "SQL `DIALECT`: "+strings.Join(dialectNames(), ", "))
	cmd.Flags().StringVar(&opts.Out, "out", "", "write `DIR`/<dialect>.schema.sql and <dialect>.queries.sql instead of printing")
	_ = cmd.RegisterFlagCompletionFunc("dialect", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return dialectNames(), cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

// dialectNames are the values --dialect takes.
func dialectNames() []string {
	names := make([]string, len(storage.Dialects))
	for i, d := range storage.Dialects {
		names[i] = string(d)
	}
	return names
}

func runStorage(_ context.Context, opts *storageOptions) error {
	sys := opts.IO
	c, err := contract.Load(opts.Contract)
	if err != nil {
		return inputError(err)
	}
	if bad := claimErrors(c); len(bad) > 0 {
		report := newReport(sys, "text", sys.ErrIsTTY, bad, map[string][]byte{c.File: c.Source})
		if err := findings.Encode(sys.Err, "text", report); err != nil {
			return err
		}
		fmt.Fprintf(sys.Err, "%s: the claim design is flawed; no SQL was written (fix the findings above)\n", c.File)
		return failed()
	}
	s, err := storage.Generate(c, opts.Dialect)
	if err != nil {
		return usageErrorf("%v", err)
	}
	if opts.Out == "" {
		_, err := fmt.Fprint(sys.Out, s.Render())
		return err
	}
	if err := os.MkdirAll(opts.Out, 0o755); err != nil {
		return inputError(err)
	}
	// Replaces the files only when an earlier run wrote them (the folder's
	// manifest says so): a hand-written file of the same name is the
	// user's, and is refused.
	schema, queries := s.Files()
	files := []safeout.File{
		{Name: string(opts.Dialect) + ".schema.sql", Data: []byte(schema)},
		{Name: string(opts.Dialect) + ".queries.sql", Data: []byte(queries)},
	}
	if err := safeout.WriteFiles(opts.Out, files); err != nil {
		return inputError(err)
	}
	for _, f := range files {
		fmt.Fprintf(sys.Err, "wrote %q\n", filepath.Join(opts.Out, f.Name))
	}
	return nil
}

// claimErrors returns the contract's unwaived claim/* findings at error
// severity: a claim design no SQL can make safe.
func claimErrors(c *contract.Contract) []findings.Finding {
	var bad []findings.Finding
	for _, f := range rules.Run(c) {
		if strings.HasPrefix(f.Rule, "claim/") && f.Severity == findings.Error && !f.Waived {
			bad = append(bad, f)
		}
	}
	return bad
}
