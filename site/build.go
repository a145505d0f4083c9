package site

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/contract/diff"
	"github.com/retryspec/retryspec/contract/rules"
	"github.com/retryspec/retryspec/findings"
	"github.com/retryspec/retryspec/internal/safeout"
	"github.com/retryspec/retryspec/openapi"
	"github.com/retryspec/retryspec/render"
)

// MarkdownDir is the folder of the Markdown pages inside the output.
const MarkdownDir = "markdown"

// Options configure one build.
type Options struct {
	// Contract is the path of retryspec.yaml.
	Contract string
	// Out is the output folder; it is replaced as a whole. Empty means the
	// contract's docs.out, relative to the contract's folder.
	Out string
	// Templates is a folder of template overrides ("" for none).
	Templates string
	// MarkdownOnly skips the HTML site.
	MarkdownOnly bool
	// SiteURL, when set, makes the sitemap's locations absolute.
	SiteURL string
	// OpenAPI, when set, is the API's OpenAPI spec: the build checks the
	// contract's endpoints against it and writes the Overlay 1.0 document
	// and the merged spec under openapi/.
	OpenAPI string
	// Extra, when set, returns more files for the output folder, made from
	// the contract the build loaded (the CLI's Prometheus alerting rules):
	// everything a build writes stays inside its folder.
	Extra func(c *contract.Contract) ([]File, error)

	// afterWrite, in tests, runs after each file is written to the
	// temporary folder; an error aborts the build there.
	afterWrite func(name string) error
	// git reads the contract's history for the Changelog page; nil runs
	// the git binary. Tests substitute it for stable golden files.
	git diff.Git
}

// File is one output file, its path relative to the output folder.
type File = render.File

// FindingsError is a build refused because the contract (or the build's
// own pages) has findings at error severity.
type FindingsError struct {
	What     string // "the contract" or "the generated pages"
	Findings []findings.Finding
	// Sources maps each finding's File to its content, for carets.
	Sources map[string][]byte
}

func (e *FindingsError) Error() string {
	n, _ := findings.Counts(e.Findings)
	errs := "errors"
	if n == 1 {
		errs = "error"
	}
	return fmt.Sprintf("%s has %d %s; nothing was written", e.What, n, errs)
}

// Result is what a build wrote.
type Result struct {
	Out   string // the output folder, as given or as docs.out names it
	Dir   string // the folder written: Out with its symlinks resolved (and checked, for docs.out)
	Files []File // every file, relative to Out, sorted by path
	// Contract is the contract the build loaded, for what the command
	// writes beside the site (loading a 20,000-endpoint contract again
	// cost 0.7 s of CPU).
	Contract *contract.Contract
}

// Build loads and checks the contract, renders every page and writes the
// output folder atomically: on any error the previous output is untouched.
func Build(ctx context.Context, opts Options) (*Result, error) {
	c, err := contract.Load(opts.Contract)
	if err != nil {
		return nil, err
	}
	sources := map[string][]byte{c.File: c.Source}
	var spec *openapi.Result
	var drift []findings.Finding
	if opts.OpenAPI != "" {
		if spec, err = openapi.Render(c, opts.OpenAPI, openapi.LoadOptions{}, false); err != nil {
			return nil, err
		}
		drift = openapi.DriftSpec(c, spec.Spec)
		rules.MarkWaived(c, drift)
		drift = append(drift, spec.Plan.Findings...)
		sources[opts.OpenAPI] = spec.Spec.Data
		// The pages and snippets show the spec's request example where
		// the contract names none, and check no longer asks for one.
		openapi.ApplyRequestExamples(c, spec.Spec)
	}
	fs := append(checkContract(c), drift...)
	if findings.Failed(fs, false) {
		findings.Sort(fs)
		return nil, &FindingsError{What: findingsWhere(fs, c.File), Findings: fs, Sources: sources}
	}
	t, err := render.LoadTemplates(opts.Templates)
	if err != nil {
		return nil, err
	}
	g := opts.git
	if g == nil {
		g = diff.ExecGit{}
	}
	// Highlighting the snippets is most of the HTML's cost: it starts as
	// soon as they are rendered, on the other core, beside the git history
	// and the Markdown rendering.
	var hl *render.Highlighter
	var prepared sync.WaitGroup
	defer prepared.Wait()
	in, err := inputs(ctx, c, g, func(in render.Inputs) {
		if !opts.MarkdownOnly {
			hl = render.NewHighlighter()
			prepared.Go(func() { hl.PrepareSnippets(in) })
		}
	})
	if err != nil {
		return nil, err
	}
	// The Markdown pages' own copy check runs beside the HTML rendering.
	var ownCopy []findings.Finding
	var linted sync.WaitGroup
	files, err := generate(in, t, opts, hl, func(md []File) {
		linted.Go(func() { ownCopy = lintOwnCopy(c, md) })
	})
	linted.Wait()
	if err != nil {
		return nil, err
	}
	if spec != nil {
		files = append(files,
			File{Path: "openapi/overlay.yaml", Data: spec.Overlay},
			File{Path: "openapi/" + filepath.Base(opts.OpenAPI), Data: spec.Merged})
	}
	if opts.Extra != nil {
		extra, err := opts.Extra(c)
		if err != nil {
			return nil, err
		}
		files = append(files, extra...)
	}
	slices.SortFunc(files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	if fs := ownCopy; findings.Failed(fs, false) {
		sources := map[string][]byte{}
		for _, f := range files {
			sources[f.Path] = f.Data
		}
		return nil, &FindingsError{What: "the generated pages", Findings: fs, Sources: sources}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	writeTo := opts.Out
	if opts.Out == "" {
		// docs.out comes from the contract, which arrives in pull
		// requests: it must stay inside the contract's folder once every
		// symlink on the way is followed, and the build writes to the
		// path it checked.
		out, err := safeout.Contained(filepath.Dir(c.File), OutDir(c))
		if err != nil {
			return nil, fmt.Errorf("%s: docs.out: %w", c.File, err)
		}
		opts.Out, writeTo = OutDir(c), out
	}
	if err := Write(writeTo, files, opts.afterWrite); err != nil {
		return nil, err
	}
	return &Result{Out: opts.Out, Dir: writeTo, Files: files, Contract: c}, nil
}

// OutDir is where a contract's docs go by default: its docs.out, relative
// to the folder of the contract file.
func OutDir(c *contract.Contract) string {
	out := c.Docs.Out
	if out == "" {
		out = contract.DefaultDocsOut
	}
	if filepath.IsAbs(out) {
		return out
	}
	return filepath.Join(filepath.Dir(c.File), out)
}

// Generate renders the whole output in memory, sorted by path.
func Generate(in render.Inputs, t *render.Templates, opts Options) ([]File, error) {
	return generate(in, t, opts, nil, nil)
}

// generate is Generate, highlighting through hl (nil: a new Highlighter)
// so that code a build has started on is not highlighted twice;
// markdownDone, when not nil, is handed the Markdown pages as soon as they
// are rendered, so their copy check runs while the HTML site renders.
func generate(in render.Inputs, t *render.Templates, opts Options, hl *render.Highlighter, markdownDone func([]File)) ([]File, error) {
	if hl == nil {
		hl = render.NewHighlighter()
	}
	pages, pictures, err := render.Markdown(in, t)
	if err != nil {
		return nil, err
	}
	var files []File
	for _, p := range pages {
		files = append(files, File{Path: MarkdownDir + "/" + p.Path, Data: p.Markdown})
	}
	if markdownDone != nil {
		markdownDone(slices.Clone(files))
	}
	for _, f := range pictures {
		files = append(files, File{Path: MarkdownDir + "/" + f.Path, Data: f.Data})
	}
	if !opts.MarkdownOnly {
		html, err := hl.HTML(in, pages, t)
		if err != nil {
			return nil, err
		}
		files = append(files, html...)
		for _, f := range pictures {
			if path.Ext(f.Path) == ".svg" { // not the docs platforms' sidebar files
				files = append(files, f)
			}
		}
		files = append(files, File{Path: "sitemap.xml", Data: Sitemap(pages, opts.SiteURL)})
	}
	slices.SortFunc(files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	for i := 1; i < len(files); i++ {
		if files[i].Path == files[i-1].Path {
			return nil, fmt.Errorf("two outputs share the path %s", files[i].Path)
		}
	}
	return files, nil
}

// Write replaces the folder out with files, atomically. It refuses to
// replace a folder that holds anything an earlier build did not write (a
// source folder given as --out by mistake, a file added or edited since):
// see safeout.ReplaceDir, whose manifest each build leaves in out.
func Write(out string, files []File, afterWrite func(string) error) error {
	if out == "" {
		return errors.New("no output folder")
	}
	return safeout.ReplaceDir(out, nil, func(tmp string) error {
		made := map[string]bool{}
		for _, f := range files {
			dir := path.Dir(f.Path)
			if made[dir] {
				continue
			}
			if err := os.MkdirAll(filepath.Join(tmp, filepath.FromSlash(dir)), 0o755); err != nil {
				return err
			}
			made[dir] = true
		}
		// Creating a file is a system call that waits on the file
		// system more than on the CPU: a few at a time.
		var (
			mu     sync.Mutex
			next   int
			failed error
			wg     sync.WaitGroup
		)
		for range min(writers, len(files)) {
			wg.Go(func() {
				var buf []byte
				for {
					mu.Lock()
					if failed != nil || next == len(files) {
						mu.Unlock()
						return
					}
					f := files[next]
					next++
					mu.Unlock()
					name := filepath.FromSlash(f.Path)
					var err error
					if !reuse(filepath.Join(out, name), filepath.Join(tmp, name), f.Data, &buf) {
						err = os.WriteFile(filepath.Join(tmp, name), f.Data, 0o644)
					}
					mu.Lock()
					if err == nil && failed == nil && afterWrite != nil {
						err = afterWrite(f.Path)
					}
					if err != nil && failed == nil {
						failed = err
					}
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		return failed
	})
}

// writers is how many files Write creates at a time.
const writers = 4

// Sitemap lists the HTML pages. Without siteURL the locations are relative
// to the site root (pass --site-url for a sitemap search engines accept).
func Sitemap(pages []render.Page, siteURL string) []byte {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	b.WriteString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
	base := strings.TrimSuffix(siteURL, "/")
	for _, p := range pages {
		loc := render.HTMLPath(p.Path)
		if base != "" {
			loc = base + "/" + loc
		}
		fmt.Fprintf(&b, "  <url><loc>%s</loc></url>\n", xmlEscape(loc))
	}
	b.WriteString("</urlset>\n")
	return b.Bytes()
}

func xmlEscape(s string) string {
	var b bytes.Buffer
	for _, r := range s {
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '"':
			b.WriteString("&quot;")
		case '\'':
			b.WriteString("&apos;")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// findingsWhere names what holds the error findings: the contract, the
// spec (a contradiction sits at the spec's value), or both.
func findingsWhere(fs []findings.Finding, contractFile string) string {
	inContract, elsewhere := false, false
	for _, f := range fs {
		if f.Severity != findings.Error || f.Waived {
			continue
		}
		if f.File == contractFile {
			inContract = true
		} else {
			elsewhere = true
		}
	}
	switch {
	case inContract && elsewhere:
		return "the contract and the spec"
	case elsewhere:
		return "the spec"
	}
	return "the contract"
}
