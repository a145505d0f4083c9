package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/retryspec/retryspec/internal/atomicwrite"
	"github.com/retryspec/retryspec/templates"
)

type templatesExportOptions struct {
	IO    *IO
	Dir   string
	Force bool
}

func newTemplatesCmd(sys *IO) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "templates",
		Short: "Work with the page templates (export the built-in ones to start an override)",
		Long: "The docs pages and the site come from templates built into retryspec. Any of them can be\n" +
			"replaced: put a file at the same relative path under a folder and pass that folder to\n" +
			"build or serve with --templates DIR. 'templates export DIR' writes the built-in set there\n" +
			"to start from; keep the files you change and delete the rest.",
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newTemplatesExportCmd(sys, nil))
	return cmd
}

func newTemplatesExportCmd(sys *IO, runF func(context.Context, *templatesExportOptions) error) *cobra.Command {
	opts := &templatesExportOptions{IO: sys}
	cmd := &cobra.Command{
		Use:   "export DIR",
		Short: "Write the built-in templates to DIR, at the relative paths --templates DIR overrides",
		Long: "Write every built-in template and asset to DIR, each at the relative path an override\n" +
			"must have (markdown/retrying.md.tmpl, html/layout.html, assets/site.css, ...). Edit the\n" +
			"ones to change, delete the others, then: retryspec build --templates DIR.\n\n" +
			"A new DIR is written whole or not at all. Files already in DIR are never replaced\n" +
			"unless --force is given.",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErrorf("templates export needs one folder to write to: retryspec templates export DIR")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dir = args[0]
			return runCommand(cmd.Context(), sys, defaultMemory, opts, runF, runTemplatesExport)
		},
	}
	cmd.Flags().BoolVar(&opts.Force, "force", false, "replace files already in DIR with the built-in versions")
	return cmd
}

// builtinTemplates lists the embedded files with their relative paths,
// whatever the template tree holds.
func builtinTemplates() (map[string][]byte, []string, error) {
	files := map[string][]byte{}
	var names []string
	err := fs.WalkDir(templates.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(templates.FS, p)
		if err != nil {
			return err
		}
		files[p] = b
		names = append(names, p)
		return nil
	})
	return files, names, err
}

func runTemplatesExport(_ context.Context, opts *templatesExportOptions) error {
	sys := opts.IO
	files, names, err := builtinTemplates()
	if err != nil {
		return err
	}
	st, err := os.Stat(opts.Dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// A new folder: all of it or nothing.
		err = atomicwrite.Dir(opts.Dir, func(tmp string) error {
			for _, name := range names {
				dst := filepath.Join(tmp, filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
					return err
				}
				if err := os.WriteFile(dst, files[name], 0o644); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return inputError(fmt.Errorf("templates export %s: %w", opts.Dir, err))
		}
	case err != nil:
		return inputError(fmt.Errorf("templates export %s: %w", opts.Dir, err))
	case !st.IsDir():
		return inputError(fmt.Errorf("templates export %s: exists and is not a folder", opts.Dir))
	default:
		if !opts.Force {
			var taken []string
			for _, name := range names {
				if _, err := os.Lstat(filepath.Join(opts.Dir, filepath.FromSlash(name))); err == nil {
					taken = append(taken, name)
				}
			}
			if len(taken) > 0 {
				return inputError(fmt.Errorf("templates export %s: %d of the files are already there (first %s); nothing was written. "+
					"Export into a new folder, or pass --force to replace them with the built-in versions", opts.Dir, len(taken), filepath.Join(opts.Dir, filepath.FromSlash(taken[0]))))
			}
		}
		for _, name := range names {
			if err := atomicwrite.File(filepath.Join(opts.Dir, filepath.FromSlash(name)), files[name], 0o644); err != nil {
				return inputError(fmt.Errorf("templates export: %w", err))
			}
		}
	}
	fmt.Fprintf(sys.Err, "retryspec: wrote %d templates to %s; keep the ones you change, delete the rest, then: retryspec build --templates %s\n",
		len(names), opts.Dir, shellQuote(opts.Dir))
	return nil
}
