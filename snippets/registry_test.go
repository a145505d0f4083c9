package snippets

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/internal/testenv"
)

// TestLanguageRegistry: contract.LanguageTable is the one list of
// languages, and each row is complete: its full and short templates exist,
// its quoting function and formatter are known, it says what it needs, it
// renders both forms of the example contract, it appears in the snippet
// table under its title and in its order, and the loader accepts it in
// sdk.languages. Every template file belongs to a row.
func TestLanguageRegistry(t *testing.T) {
	c := loadExample(t)
	var names []string
	used := map[string]bool{}
	for _, reg := range contract.LanguageTable {
		names = append(names, reg.Name)
		s := reg.Snippet
		for _, path := range []string{"templates/" + s.Template, "templates/short/" + s.Template} {
			used[path] = true
			if _, err := fs.Stat(templateFS, path); err != nil {
				t.Errorf("%s: template %s: %v", reg.Name, path, err)
			}
		}
		if quoters[s.Quote] == nil {
			t.Errorf("%s: Snippet.Quote %q is not a quoting function of escape.go", reg.Name, s.Quote)
		}
		if _, ok := literals[s.Literal]; !ok || s.NewKey == "" {
			t.Errorf("%s: Snippet.Literal %q is not a body syntax of literal.go, or Snippet.NewKey is empty", reg.Name, s.Literal)
		}
		if s.Format != "" && formatters[s.Format] == nil {
			t.Errorf("%s: Snippet.Format %q is not a formatter of languages.go", reg.Name, s.Format)
		}
		if s.FileName == "" || s.Runtime == "" || len(s.Run) == 0 || len(s.Check) == 0 || s.Library == "" {
			t.Errorf("%s: the row needs a file name, runtime, run and check commands and library prose: %+v", reg.Name, s)
		}
		if len(s.Needs) == 0 {
			t.Errorf("%s has no needs: `snippets test` could not say what to install", reg.Name)
		}
		if reg.Title == "" || reg.FenceTag == "" {
			t.Errorf("%s: the registry row needs a title and a fence tag", reg.Name)
		}
		l, ok := LanguageNamed(reg.Name)
		if !ok || l.Title != reg.Title {
			t.Errorf("%s: snippet table has %+v, want the registry's title %q", reg.Name, l, reg.Title)
		}
		if full, err := Render(c, reg.Name); err != nil || len(full) == 0 {
			t.Errorf("%s: no full program: %v", reg.Name, err)
		}
		if short, err := Short(c, reg.Name); err != nil || len(short) == 0 {
			t.Errorf("%s: no short form: %v", reg.Name, err)
		}
		src := "retryspec: 1\napi: {name: A, base_url: https://a.example}\nidempotency: {}\nsdk:\n  languages: [" + reg.Name + "]\n"
		if got, err := contract.Parse("retryspec.yaml", []byte(src)); err != nil {
			t.Errorf("%s: the loader rejects it in sdk.languages: %v", reg.Name, err)
		} else if !slices.Equal(got.SDK.Languages, []string{reg.Name}) {
			t.Errorf("%s: sdk.languages read as %v", reg.Name, got.SDK.Languages)
		}
	}
	if got := LanguageNames(); !slices.Equal(got, names) {
		t.Errorf("snippet table lists %v, the registry %v (same languages, same order)", got, names)
	}
	fs.WalkDir(templateFS, "templates", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !used[path] {
			t.Errorf("template %s belongs to no language", path)
		}
		return err
	})
}

// TestAddingALanguage adds a language the way snippets/README.md says: a
// registry row and its two templates (here in a test file system), and
// nothing else. The snippet table's row built from it renders the full
// program and the short form, quotes contract strings with the quoting
// function the row names, and reports the needs the row lists.
func TestAddingALanguage(t *testing.T) {
	reg := contract.Language{Name: "kotlin", Title: "Kotlin", FenceTag: "kotlin", Snippet: contract.SnippetSpec{
		FileName: "Snippet.kt", Template: "kotlin.kt.tmpl", Quote: "JavaString", Literal: "JSONText", NewKey: "UUID.randomUUID().toString()", Runtime: "kotlin",
		Library: "the standard library", Run: []string{"kotlin", "{file}"}, Check: []string{"kotlinc", "{file}"},
		Needs: []contract.SnippetNeed{{What: "Kotlin", Install: "kotlinlang.org", Program: "kotlin"}},
	}}
	templates := fstest.MapFS{
		"templates/kotlin.kt.tmpl":       {Data: []byte("val base = {{q .BaseURL}} // {{.MaxAttempts}} attempts, {{.Jitter}} jitter\n")},
		"templates/short/kotlin.kt.tmpl": {Data: []byte("post({{body .Body}}, {{newkey}}) // retries {{.Retried}}\n")},
	}
	l := languageOf(reg, templates)
	c := loadExample(t)
	c.API.BaseURL = `https://api.example/"quoted"`
	p, err := NewPolicy(c)
	if err != nil {
		t.Fatal(err)
	}
	full, err := l.render(p)
	if err != nil {
		t.Fatal(err)
	}
	if want := "val base = " + JavaString(c.API.BaseURL) + " // " + strconv.Itoa(p.MaxAttempts) + " attempts, " + p.Jitter + " jitter\n"; string(full) != want {
		t.Errorf("full program = %q, want %q", full, want)
	}
	short, err := l.short(newShortData(p))
	if err != nil {
		t.Fatal(err)
	}
	if want := "post(" + JavaString(p.Body.String()) + ", UUID.randomUUID().toString()) // retries "; !strings.HasPrefix(string(short), want) {
		t.Errorf("short form = %q", short)
	}
	if needs := l.Needs(); len(needs) != 1 || needs[0].Message("") != "install Kotlin (kotlinlang.org)" {
		t.Errorf("needs = %+v", needs)
	}
	if l.Title != "Kotlin" || l.FileName != "Snippet.kt" || !slices.Equal(l.Run, reg.Snippet.Run) {
		t.Errorf("snippet table row = %+v", l)
	}
}

// TestNothingElseListsLanguages reads every Go file of the module, tests
// included, for a switch or a composite literal (a table, a map, a list)
// that names two or more registry languages as string literals: such a
// list is a second place a new language would have to be added. Only
// contract/languages.go may hold one, and the files below for the reason
// given.
func TestNothingElseListsLanguages(t *testing.T) {
	exempt := map[string]string{
		"contract/languages.go": "the registry",
		// The list there names programs (python3, node, go, javac, ...),
		// some of which are spelled like languages, and the hostile suite
		// tests the binary from outside: it may not import the registry.
		"internal/hostiletest/snippets_test.go": "runtime programs, not languages",
	}
	root := testenv.RepoRoot(t)
	isLanguage := map[string]bool{}
	for _, l := range contract.LanguageTable {
		isLanguage[l.Name] = true
	}
	fset := token.NewFileSet()
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		if _, ok := exempt[filepath.ToSlash(rel)]; ok || !strings.HasSuffix(path, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, path, src, 0)
		if err != nil {
			return err
		}
		files++
		ast.Inspect(f, func(n ast.Node) bool {
			var lits []ast.Expr
			switch n := n.(type) {
			case *ast.SwitchStmt:
				for _, s := range n.Body.List {
					lits = append(lits, s.(*ast.CaseClause).List...)
				}
			case *ast.CompositeLit:
				for _, e := range n.Elts {
					if kv, ok := e.(*ast.KeyValueExpr); ok {
						lits = append(lits, kv.Key, kv.Value)
					} else {
						lits = append(lits, e)
					}
				}
			default:
				return true
			}
			var named []string
			for _, e := range lits {
				if b, ok := e.(*ast.BasicLit); ok && b.Kind == token.STRING {
					if s, err := strconv.Unquote(b.Value); err == nil && isLanguage[s] && !slices.Contains(named, s) {
						named = append(named, s)
					}
				}
			}
			if len(named) >= 2 {
				t.Errorf("%s:%d lists the languages %v: read them from contract.LanguageTable instead", rel, fset.Position(n.Pos()).Line, named)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("read %d Go files; the walk missed the module", files)
	}
}
