package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/internal/safeout"
	"github.com/retryspec/retryspec/openapi"
	"github.com/retryspec/retryspec/snippets"
	"github.com/retryspec/retryspec/snippets/run"
	"github.com/retryspec/retryspec/snippets/suite"
)

type snippetsOptions struct {
	IO           *IO
	ContractPath string
	// OpenAPI, when set, is the API's spec: its request examples stand in
	// for the ones the contract does not name.
	OpenAPI string
	Lang    string
	Out     string
	BaseURL string
	Args    []string
	// Runner builds and runs snippets (snippets run, snippets test);
	// tests may replace it with a run.Fake.
	Runner run.Runner
}

// newSnippetsCmd: snippets, snippets run and snippets test share one
// options value (-c is the parent's); runF is the seam of the parent.
func newSnippetsCmd(sys *IO, runF func(context.Context, *snippetsOptions) error) *cobra.Command {
	opts := &snippetsOptions{IO: sys, Runner: run.Exec{Getenv: sys.Getenv}}
	cmd := &cobra.Command{
		Use:   "snippets [-c FILE] [--lang L] [--out DIR]",
		Short: "Print or write the retry snippets, one complete program per language",
		Long: "Render the contract's retry policy as a runnable program in each language (" +
			strings.Join(snippets.LanguageNames(), ", ") + ").\n" +
			"--lang prints one; --out DIR writes them all (or the one named) into DIR, with a\n" +
			"manifest (.retryspec-manifest) of what it wrote; an existing file that retryspec\n" +
			"did not write is never replaced.",
		Args: contractFlagArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkLang(opts.Lang); err != nil {
				return err
			}
			return runCommand(cmd.Context(), sys, opts.memory(), opts, runF, runSnippets)
		},
	}
	cmd.PersistentFlags().StringVarP(&opts.ContractPath, "contract", "c", "retryspec.yaml", "the contract `FILE`")
	cmd.PersistentFlags().StringVar(&opts.OpenAPI, "openapi", "", "the API's OpenAPI `SPEC`: its request examples stand in for the ones the contract does not name")
	cmd.Flags().StringVar(&opts.Lang, "lang", "", "one `LANG`: "+strings.Join(snippets.LanguageNames(), ", "))
	cmd.Flags().StringVar(&opts.Out, "out", "", "write the snippets into this `DIR` instead of printing")
	cmd.AddCommand(newSnippetsRunCmd(sys, opts, nil), newSnippetsTestCmd(sys, opts, nil))
	return cmd
}

func checkLang(lang string) error {
	if lang == "" {
		return nil
	}
	if _, ok := snippets.LanguageNamed(lang); !ok {
		return usageErrorf("unknown language %q (one of %s)", lang, strings.Join(snippets.LanguageNames(), ", "))
	}
	return nil
}

// loadSnippetsContract loads the contract and, with --openapi, takes the
// spec's request examples where the contract names none, as build does.
func loadSnippetsContract(opts *snippetsOptions) (*contract.Contract, error) {
	c, err := contract.Load(opts.ContractPath)
	if err != nil {
		return nil, inputError(err)
	}
	if opts.OpenAPI != "" {
		s, err := openapi.Load(opts.OpenAPI, openapi.LoadOptions{})
		if err != nil {
			return nil, inputError(err)
		}
		openapi.ApplyRequestExamples(c, s)
	}
	return c, nil
}

// memory: with --openapi, a spec in memory, as build --openapi.
func (o *snippetsOptions) memory() memoryProfile {
	if o.OpenAPI != "" {
		return specMemory
	}
	return defaultMemory
}

func renderErr(err error, c *contract.Contract) error {
	return inputError(fmt.Errorf("%s: %w", c.File, err))
}

func runSnippets(_ context.Context, opts *snippetsOptions) error {
	sys := opts.IO
	c, err := loadSnippetsContract(opts)
	if err != nil {
		return err
	}
	var langs []snippets.Language
	for _, l := range snippets.Languages() {
		if opts.Lang == "" || l.Name == opts.Lang {
			langs = append(langs, l)
		}
	}
	rendered := make([][]byte, len(langs))
	for i, l := range langs {
		if rendered[i], err = snippets.Render(c, l.Name); err != nil {
			return renderErr(err, c)
		}
	}
	if opts.Out != "" {
		// DIR is the user's folder: only the snippet files are written,
		// and one that exists is replaced only when retryspec wrote it
		// (the folder's manifest says so) or it already holds the snippet.
		var files []safeout.File
		for i, l := range langs {
			files = append(files, safeout.File{Name: l.FileName, Data: rendered[i]})
		}
		if err := safeout.WriteFiles(opts.Out, files); err != nil {
			return inputError(err)
		}
		for _, l := range langs {
			fmt.Fprintf(sys.Err, "wrote %q\n", filepath.Join(opts.Out, l.FileName))
		}
		return nil
	}
	if len(langs) == 1 {
		_, err := sys.Out.Write(rendered[0])
		return err
	}
	for i, l := range langs {
		if i > 0 {
			fmt.Fprintln(sys.Out)
		}
		fmt.Fprintf(sys.Out, "==> %s (%s) <==\n", l.FileName, l.Title)
		sys.Out.Write(rendered[i])
	}
	return nil
}

// snippetVars fills the languages' command placeholders from the cache
// folder (RETRYSPEC_SNIPPETS_CACHE, default ~/.cache/retryspec/snippets)
// where the Java jars and the TypeScript compiler are looked for.
func snippetVars(sys *IO) map[string]string {
	cache := sys.Getenv("RETRYSPEC_SNIPPETS_CACHE")
	if cache == "" {
		home := sys.Getenv("HOME")
		if home == "" {
			home, _ = os.UserHomeDir()
		}
		cache = filepath.Join(home, ".cache", "retryspec", "snippets")
	}
	return map[string]string{
		"cache":     cache,
		"jars":      filepath.Join(cache, "jars") + string(filepath.Separator) + "*",
		"tsc":       filepath.Join(cache, "node_modules", ".bin", "tsc"),
		"typeroots": filepath.Join(cache, "node_modules", "@types"),
	}
}

func newSnippetsRunCmd(sys *IO, parent *snippetsOptions, runF func(context.Context, *snippetsOptions) error) *cobra.Command {
	opts := parent
	cmd := &cobra.Command{
		Use:   "run --lang L [--base-url URL] [-- ARGS]",
		Short: "Run one rendered snippet as a program, e.g. against a staging API",
		Long: "Run the rendered snippet for one language, once, against --base-url (default: the contract's\n" +
			"api.base_url) and pass its output through. Exit status: 0 when the program succeeds,\n" +
			"1 when it fails (its exit status is named on stderr) or cannot run, 2 for a wrong\n" +
			"contract or command line. ARGS go to the program (an idempotency key of your own, say).",
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Lang == "" {
				return usageErrorf("snippets run needs --lang (one of %s)", strings.Join(snippets.LanguageNames(), ", "))
			}
			if err := checkLang(opts.Lang); err != nil {
				return err
			}
			opts.Args = args
			return runCommand(cmd.Context(), sys, opts.memory(), opts, runF, runSnippetsRun)
		},
	}
	cmd.Flags().StringVar(&opts.Lang, "lang", "", "the `LANG` to run")
	cmd.Flags().StringVar(&opts.BaseURL, "base-url", "", "call this base `URL` instead of api.base_url")
	return cmd
}

func runSnippetsRun(ctx context.Context, opts *snippetsOptions) error {
	sys := opts.IO
	c, err := loadSnippetsContract(opts)
	if err != nil {
		return err
	}
	src, err := snippets.Render(c, opts.Lang)
	if err != nil {
		return renderErr(err, c)
	}
	lang, _ := snippets.LanguageNamed(opts.Lang)
	vars := snippetVars(sys)
	for _, n := range lang.Needs() {
		if n.Program == "" {
			continue
		}
		prog := n.Program
		for k, v := range vars {
			prog = strings.ReplaceAll(prog, "{"+k+"}", v)
		}
		if _, err := exec.LookPath(prog); err != nil {
			return failedf("the %s snippet needs %s: %s", lang.Name, n.What, n.Message(vars["cache"]))
		}
	}
	for _, prog := range run.Programs(lang.Runtime, lang.Build, lang.Run, vars) {
		if _, err := exec.LookPath(prog); err != nil {
			return failedf("the %s snippet needs %s, which is not installed", lang.Name, prog)
		}
	}
	env := map[string]string{}
	if opts.BaseURL != "" {
		env[snippets.BaseURLEnv] = opts.BaseURL
	}
	// The whole loop is bounded by max_elapsed; leave room for the runtime's start.
	timeout := c.Retry.MaxElapsed.D + time.Minute
	prog, err := opts.Runner.Prepare(ctx, run.Program{
		FileName: lang.FileName, Source: src, Build: lang.Build, Run: slices.Concat(lang.Run, opts.Args),
		Vars: vars, Timeout: timeout, Stdout: sys.Out, Stderr: sys.Err,
	})
	if err != nil {
		return failedWith(err)
	}
	defer prog.Close()
	res, err := prog.Run(ctx, env)
	if err != nil {
		return failedWith(err)
	}
	if res.TimedOut {
		return failedf("the %s snippet did not finish within %s", lang.Name, timeout)
	}
	// A failed run is exit 1 like any failed check, whatever code the
	// program chose (exit 2 would read as retryspec's own usage error);
	// the code itself is named on stderr.
	if res.ExitCode != 0 {
		return failedf("the %s snippet exited with status %d", lang.Name, res.ExitCode)
	}
	return nil
}

func newSnippetsTestCmd(sys *IO, parent *snippetsOptions, runF func(context.Context, *snippetsOptions) error) *cobra.Command {
	opts := parent
	cmd := &cobra.Command{
		Use:   "test [--lang L]",
		Short: "Prove each rendered snippet in its runtime against the fault-injection server",
		Long: "Start a fault-injection server on loopback and run every language's rendered snippet\n" +
			"(the contract's policy with the delays scaled down) through scripted failures, checking\n" +
			"from the server side: request count, one key on every attempt, waits inside the jitter\n" +
			"envelope, a log line per retry. Exit 1 on any failure.",
		Args: contractFlagArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkLang(opts.Lang); err != nil {
				return err
			}
			return runCommand(cmd.Context(), sys, opts.memory(), opts, runF, runSnippetsTest)
		},
	}
	cmd.Flags().StringVar(&opts.Lang, "lang", "", "test one `LANG` only")
	return cmd
}

func runSnippetsTest(ctx context.Context, opts *snippetsOptions) error {
	sys := opts.IO
	c, err := loadSnippetsContract(opts)
	if err != nil {
		return err
	}
	var langs []string
	if opts.Lang != "" {
		langs = []string{opts.Lang}
	}
	rep, err := suite.Run(ctx, c, suite.Options{
		Languages: langs,
		Runner:    opts.Runner,
		Vars:      snippetVars(sys),
		Progress:  sys.Err,
	})
	if err != nil {
		var le *contract.LoadError
		if errors.As(err, &le) {
			return inputError(err)
		}
		return renderErr(err, c)
	}
	var b bytes.Buffer
	for _, o := range rep.Omitted {
		fmt.Fprintf(&b, "note: %s\n", o)
	}
	for _, l := range snippets.LanguageNames() {
		if d, ok := rep.LanguageTime[l]; ok {
			fmt.Fprintf(&b, "time %-10s %6.1fs\n", l, d.Seconds())
		}
	}
	passed, failedN := rep.Counts()
	fmt.Fprintf(&b, "total %.1fs\n%d passed, %d failed\n", rep.Elapsed.Seconds(), passed, failedN)
	sys.Err.Write(b.Bytes())
	if failedN > 0 {
		return failed()
	}
	return nil
}
