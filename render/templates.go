package render

import (
	"fmt"
	htmltemplate "html/template"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"text/template"
	"text/template/parse"

	"github.com/retryspec/retryspec/internal/safeout"
	"github.com/retryspec/retryspec/templates"
)

// Templates are the parsed page templates and the site assets: the
// embedded set, with any file of an override folder put in its place.
type Templates struct {
	markdown map[string]*template.Template // by page name: "retrying", "rule", ...
	layout   *htmltemplate.Template
	assets   map[string][]byte // by file name under assets/
}

// escapers are the functions an output action may end in. Each makes its
// argument safe for the place it lands in the Markdown.
var escapers = []string{"md", "code", "cellcode", "conflictcode", "conflictstatus", "fence", "num", "dur", "human", "slug", "ident", "marker", "link", "rulefile", "url", "markdown"}

// LoadTemplates parses the embedded templates, replacing each with the file
// of the same name under overrideDir when one exists ("" for none). A file
// in overrideDir that names no template is an error, so a typo in a file
// name does not go unnoticed.
func LoadTemplates(overrideDir string) (*Templates, error) {
	var override fs.FS
	if overrideDir != "" {
		st, err := os.Stat(overrideDir)
		if err != nil {
			return nil, fmt.Errorf("--templates %s: %w", overrideDir, err)
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("--templates %s: not a folder", overrideDir)
		}
		override = os.DirFS(overrideDir)
		if err := checkOverrides(override, overrideDir); err != nil {
			return nil, err
		}
	}
	read := func(name string) ([]byte, string, error) {
		if override != nil {
			if b, err := fs.ReadFile(override, name); err == nil {
				return b, filepath.Join(overrideDir, filepath.FromSlash(name)), nil
			}
		}
		b, err := fs.ReadFile(templates.FS, name)
		return b, "templates/" + name, err
	}
	t := &Templates{markdown: map[string]*template.Template{}, assets: map[string][]byte{}}
	mdFiles, _ := fs.Glob(templates.FS, "markdown/*.md.tmpl")
	for _, name := range mdFiles {
		src, shown, err := read(name)
		if err != nil {
			return nil, err
		}
		page := strings.TrimSuffix(path.Base(name), ".md.tmpl")
		tmpl, err := template.New(shown).Funcs(markdownFuncs).Option("missingkey=error").Parse(string(src))
		if err != nil {
			return nil, templateError(err)
		}
		if err := checkEscaped(tmpl, shown); err != nil {
			return nil, err
		}
		if err := addPartials(tmpl, read); err != nil {
			return nil, err
		}
		t.markdown[page] = tmpl
	}
	src, shown, err := read("html/layout.html")
	if err != nil {
		return nil, err
	}
	t.layout, err = htmltemplate.New(shown).Parse(string(src))
	if err != nil {
		return nil, templateError(err)
	}
	assetFiles, _ := fs.Glob(templates.FS, "assets/*")
	for _, name := range assetFiles {
		b, _, err := read(name)
		if err != nil {
			return nil, err
		}
		t.assets[path.Base(name)] = b
	}
	return t, nil
}

// checkOverrides refuses files in the override folder that replace nothing.
func checkOverrides(override fs.FS, dir string) error {
	return fs.WalkDir(override, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		// A template (or a folder of them) that is a symlink out of the
		// override folder would carry another file's content into the
		// pages; the folder's contents may arrive in a pull request.
		if d.Type()&fs.ModeSymlink != 0 {
			if _, err := safeout.Contained(dir, filepath.Join(dir, filepath.FromSlash(p))); err != nil {
				return fmt.Errorf("--templates: %w", err)
			}
		}
		if d.IsDir() || strings.HasPrefix(d.Name(), ".") {
			return nil
		}
		if _, err := fs.Stat(templates.FS, p); err != nil {
			known, _ := fs.Glob(templates.FS, "*/*")
			slices.Sort(known)
			return fmt.Errorf("--templates %s: %s replaces no template; the names are %s", dir, p, strings.Join(known, ", "))
		}
		return nil
	})
}

// checkEscaped walks a Markdown template and refuses any output action
// whose pipeline does not end in an escaper: a contract value printed raw
// could carry markup into the page.
func checkEscaped(t *template.Template, name string) error {
	for _, tt := range t.Templates() {
		if tt.Tree == nil {
			continue
		}
		if err := walkEscaped(tt.Tree.Root, tt.Tree, name); err != nil {
			return err
		}
	}
	return nil
}

func walkEscaped(n parse.Node, tree *parse.Tree, name string) error {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return nil
		}
		for _, c := range n.Nodes {
			if err := walkEscaped(c, tree, name); err != nil {
				return err
			}
		}
	case *parse.ActionNode:
		if len(n.Pipe.Decl) > 0 {
			return nil // an assignment prints nothing
		}
		cmds := n.Pipe.Cmds
		last := cmds[len(cmds)-1]
		if id, ok := last.Args[0].(*parse.IdentifierNode); ok && slices.Contains(escapers, id.Ident) {
			return nil
		}
		loc, _ := tree.ErrorContext(n)
		// loc is "name:line:col" already: the file is named once.
		if loc == "" {
			loc = name
		}
		return fmt.Errorf("%s: template error: {{%s}} prints a value without escaping it; end the action in one of %s (for example {{md ...}})",
			loc, n.Pipe, strings.Join(escapers, ", "))
	case *parse.IfNode:
		return walkBranch(&n.BranchNode, tree, name)
	case *parse.RangeNode:
		return walkBranch(&n.BranchNode, tree, name)
	case *parse.WithNode:
		return walkBranch(&n.BranchNode, tree, name)
	}
	return nil
}

func walkBranch(b *parse.BranchNode, tree *parse.Tree, name string) error {
	if err := walkEscaped(b.List, tree, name); err != nil {
		return err
	}
	if b.ElseList != nil {
		return walkEscaped(b.ElseList, tree, name)
	}
	return nil
}

// addPartials parses every markdown/partials/NAME.md.tmpl into tmpl as the
// template NAME, so a page includes one with {{template "NAME" .}}. A
// partial can be overridden like a page, and its actions are held to the
// same escaping rule.
func addPartials(tmpl *template.Template, read func(string) ([]byte, string, error)) error {
	names, _ := fs.Glob(templates.FS, "markdown/partials/*.md.tmpl")
	for _, name := range names {
		src, shown, err := read(name)
		if err != nil {
			return err
		}
		p, err := tmpl.New(strings.TrimSuffix(path.Base(name), ".md.tmpl")).Parse(string(src))
		if err != nil {
			return fmt.Errorf("template %v", err)
		}
		if err := checkEscaped(p, shown); err != nil {
			return err
		}
	}
	return nil
}
