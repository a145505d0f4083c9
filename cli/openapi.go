package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/contract/rules"
	"github.com/retryspec/retryspec/findings"
	"github.com/retryspec/retryspec/internal/atomicwrite"
	"github.com/retryspec/retryspec/openapi"
	"github.com/spf13/cobra"
)

type openapiOptions struct {
	IO                *IO
	Contract          string
	Spec              string
	Overlay           string
	Merged            string
	Force             bool
	AllowExternalRefs bool
	Format            string
}

func newOpenAPICmd(sys *IO, runF func(context.Context, *openapiOptions) error) *cobra.Command {
	opts := &openapiOptions{IO: sys}
	cmd := &cobra.Command{
		Use:   "openapi --spec SPEC [-c FILE] [--overlay OUT] [--merged OUT]",
		Short: "Add the contract to an OpenAPI spec, as an Overlay 1.0 document and/or a merged spec",
		Long: `Adds the contract to an OpenAPI 3.0 or 3.1 spec (YAML or JSON): for each
endpoint with a key, the key header, the idempotency error responses, the
replay header on success responses and x-idempotency; x-idempotency with
safe-to-retry: false on endpoints documented unsafe to retry; x-retry and
x-speakeasy-retries at the root.

--overlay writes an OpenAPI Overlay 1.0 document (JSON when OUT ends in .json).
--merged writes the spec with the additions inserted as text: every existing
line stays as it was (order, comments, quoting), so a diff shows only added
lines. What the spec already declares is reused and listed, never duplicated;
a declaration that contradicts the contract is a finding (exit 1).

The spec is never modified: --merged refuses to write over it unless --force.

With --format text (the default) the summary goes to stdout and the
findings to stderr; with a machine format (json, sarif, github) stdout
holds only the findings report, and the summary goes to stderr.`,
		Args: contractFlagArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(opts.Format); err != nil {
				return err
			}
			if opts.Spec == "" {
				return usageErrorf("--spec SPEC is required\nRun 'retryspec openapi --help' for usage.")
			}
			if opts.Overlay == "" && opts.Merged == "" {
				return usageErrorf("nothing to write: give --overlay OUT and/or --merged OUT")
			}
			return runCommand(cmd.Context(), sys, specMemory, opts, runF, runOpenAPI)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&opts.Contract, "contract", "c", "retryspec.yaml", "the contract `FILE`")
	f.StringVar(&opts.Spec, "spec", "", "the OpenAPI `SPEC` to read (YAML or JSON)")
	f.StringVar(&opts.Overlay, "overlay", "", "write the Overlay 1.0 document to this `FILE`")
	f.StringVar(&opts.Merged, "merged", "", "write the merged spec to this `FILE`")
	f.BoolVar(&opts.Force, "force", false, "let --merged overwrite the spec it reads")
	f.BoolVar(&opts.AllowExternalRefs, "allow-external-refs", false, "follow $refs to other files and URLs")
	addFormatFlag(cmd, &opts.Format)
	return cmd
}

func runOpenAPI(_ context.Context, opts *openapiOptions) error {
	sys := opts.IO
	if opts.Merged != "" && !opts.Force && samePath(opts.Merged, opts.Spec) {
		return usageErrorf("--merged %s is the input spec; write the merged spec elsewhere, or pass --force to replace it", opts.Merged)
	}
	if opts.Overlay != "" && samePath(opts.Overlay, opts.Spec) {
		return usageErrorf("--overlay %s is the input spec; write the overlay elsewhere", opts.Overlay)
	}
	// The contract is an input too, and --force is only about the spec.
	for _, out := range []struct{ flag, path string }{{"--merged", opts.Merged}, {"--overlay", opts.Overlay}} {
		if out.path != "" && samePath(out.path, opts.Contract) {
			return usageErrorf("%s %s is the contract; write it elsewhere", out.flag, out.path)
		}
	}
	if opts.Merged != "" && opts.Overlay != "" && samePath(opts.Merged, opts.Overlay) {
		return usageErrorf("--merged and --overlay both name %s; give each its own file", opts.Merged)
	}
	c, err := contract.Load(opts.Contract)
	if err != nil {
		return inputErrorIn(sys, opts.Format, opts.Contract, err)
	}
	r, err := openapi.Render(c, opts.Spec, openapi.LoadOptions{AllowExternalRefs: opts.AllowExternalRefs},
		strings.EqualFold(filepath.Ext(opts.Overlay), ".json"))
	if err != nil {
		return inputErrorIn(sys, opts.Format, opts.Spec, err)
	}
	p := r.Plan
	// Overlay 1.0 requires at least one action: with nothing to add (a spec
	// that already carries the contract) no overlay is written.
	writeOverlay := opts.Overlay != "" && len(r.Plan.Edits) > 0
	if writeOverlay {
		if err := atomicwrite.File(opts.Overlay, r.Overlay, 0o644); err != nil {
			return inputError(fmt.Errorf("write overlay: %w", err))
		}
	}
	if opts.Merged != "" {
		perm := os.FileMode(0o644)
		if st, err := os.Stat(opts.Spec); err == nil {
			perm = st.Mode().Perm()
		}
		if err := atomicwrite.File(opts.Merged, r.Merged, perm); err != nil {
			return inputError(fmt.Errorf("write merged spec: %w", err))
		}
	}

	// Text is for a person: the summary on stdout, the findings on stderr
	// with the other diagnostics. A machine format owns stdout.
	summary, diag := sys.Out, sys.Err
	if opts.Format != "text" {
		summary, diag = sys.Err, sys.Out
	}
	fmt.Fprintf(summary, "%s: %d additions (%d keyed operations, %d marked unsafe to retry)\n", opts.Spec, len(p.Edits), p.Keyed, p.Unsafe)
	for _, n := range p.Reused {
		fmt.Fprintf(summary, "  reused   %s\n", note(n))
	}
	for _, n := range p.Skipped {
		fmt.Fprintf(summary, "  skipped  %s\n", note(n))
	}
	if writeOverlay {
		fmt.Fprintf(summary, "wrote %s\n", opts.Overlay)
	} else if opts.Overlay != "" {
		fmt.Fprintf(summary, "%s not written: the spec already has everything, and an overlay needs at least one action\n", opts.Overlay)
	}
	if opts.Merged != "" {
		fmt.Fprintf(summary, "wrote %s\n", opts.Merged)
	}
	shown := append(unclassifiedWarnings(c, r.Spec), p.Findings...)
	findings.Sort(shown)
	if opts.Format == "text" {
		shown = openapi.SummarizeUnclassified(shown)
	}
	if len(shown) > 0 || opts.Format != "text" {
		// The same text as build --openapi: each finding with its source
		// line and a caret under the value.
		report := newReport(sys, opts.Format, sys.ErrIsTTY, shown, map[string][]byte{opts.Spec: r.Spec.Data, c.File: c.Source})
		if err := findings.Encode(diag, opts.Format, report); err != nil {
			return err
		}
		if findings.Failed(p.Findings, false) {
			return failed()
		}
	}
	return nil
}

// unclassifiedWarnings are the spec's state-changing operations the
// contract does not classify, the endpoint/unclassified findings of `check
// --openapi` with the contract's waivers applied: the overlay says nothing
// about them, so integrators cannot tell whether a retry is safe. Here
// they warn (the overlay is still right for what the contract does
// classify); `check --openapi` is the gate that fails on them.
func unclassifiedWarnings(c *contract.Contract, s *openapi.Spec) []findings.Finding {
	var out []findings.Finding
	drift := openapi.UnclassifiedFindings(c, s)
	rules.MarkWaived(c, drift)
	for _, f := range drift {
		if !f.Waived {
			f.Severity = findings.Warning
			out = append(out, f)
		}
	}
	return out
}

func note(n openapi.Note) string {
	where := n.File
	if n.Line > 0 {
		where = fmt.Sprintf("%s:%d", n.File, n.Line)
	}
	if n.Operation == "" {
		return fmt.Sprintf("%s: %s", where, n.Message)
	}
	return fmt.Sprintf("%s: %s: %s", where, n.Operation, n.Message)
}

// samePath reports whether a and b name the same file (after cleaning, or
// the same inode when both exist).
func samePath(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	if errA != nil || errB != nil {
		if aa, err := filepath.Abs(a); err == nil {
			if bb, err := filepath.Abs(b); err == nil {
				return aa == bb
			}
		}
		return false
	}
	return os.SameFile(sa, sb)
}

// driftFindings is `check --openapi SPEC`: the contract's endpoints against
// the spec's operations, with the contract's waivers applied, and the
// spec's source for the carets of text output.
func driftFindings(c *contract.Contract, spec string) ([]findings.Finding, []byte, error) {
	s, err := openapi.Load(spec, openapi.LoadOptions{})
	if err != nil {
		return nil, nil, err
	}
	fs := openapi.DriftSpec(c, s)
	// rules.Run already reported problems with the waivers themselves;
	// MarkWaived only marks.
	rules.MarkWaived(c, fs)
	// The contradictions openapi and build --openapi refuse on are
	// findings of check --openapi too: one verdict for the same pair,
	// waived as build waives them. Each is placed in the spec, at the
	// value that disagrees.
	fs = append(fs, openapi.NewPlan(c, s).Findings...)
	openapi.ApplyRequestExamples(c, s)
	return fs, s.Data, nil
}

// importEndpoints is `init --openapi SPEC`: every operation of the spec
// with a proposed effect and key, each marked for review. The API's name
// and base URL come from the spec unless given.
func importEndpoints(sys *IO, opts *initOptions) error {
	s, err := openapi.Load(opts.OpenAPI, openapi.LoadOptions{})
	if err != nil {
		return inputError(err)
	}
	for _, p := range openapi.Import(s) {
		if p.Skip != "" {
			fmt.Fprintf(sys.Err, "%s:%d: skipped %s: %s\n", opts.OpenAPI, p.Line, p.Operation, p.Skip)
			continue
		}
		method, path, _ := strings.Cut(p.Operation, " ")
		e := contract.StarterEndpoint{
			Method: method, Path: path, Effect: p.Effect, Key: p.Key, Summary: p.Summary,
			Review: fmt.Sprintf("%s (%s line %d)", p.Reason, filepath.Base(opts.OpenAPI), p.Line),
		}
		// A keyed operation's request example becomes the contract's, the
		// request the docs and snippets send.
		if body, ok := s.RequestExample(method, path); ok && p.Key != string(contract.KeyNone) {
			e.ExampleBody = string(body)
		}
		opts.Endpoints = append(opts.Endpoints, e)
	}
	if opts.Name == "" && s.Doc.Info != nil {
		opts.Name = s.Doc.Info.Title
	}
	if opts.BaseURL == "" && len(s.Doc.Servers) > 0 {
		if u := s.Doc.Servers[0].URL; strings.HasPrefix(u, "https://") && !strings.Contains(u, "{") {
			opts.BaseURL = u
		}
	}
	fmt.Fprintf(sys.Err, "imported %d operations from %s; every effect and key is a proposal marked `# review:`\n", len(opts.Endpoints), opts.OpenAPI)
	return nil
}
