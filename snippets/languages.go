package snippets

import (
	"bytes"
	"embed"
	"fmt"
	"go/format"
	"io/fs"
	pathpkg "path"
	"slices"
	"strconv"
	"strings"
	"text/template"
	"time"

	"github.com/retryspec/retryspec/contract"
)

//go:embed templates/*.tmpl templates/short/*.tmpl
var templateFS embed.FS

// Language is one row of the snippet table: how to name, render and run a
// snippet, read from the language's row of contract.LanguageTable (its
// Snippet spec). Build and Run are argument lists run in the snippet's
// folder; "{file}" stands for the snippet's file name and "{jars}" for the
// folder of Java libraries (see the runner). Build may be empty.
type Language struct {
	Name     string // as sdk.languages writes it: "python"
	Title    string // shown on tabs: "Python"
	FileName string // the file the snippet is written to
	// Library names the retry library and the settings that express the
	// policy, as Markdown for the Retrying page.
	Library string
	// Runtime is the program a machine needs to run the snippet.
	Runtime string
	Build   []string
	Run     []string

	// templates holds template (the full program) under templates/ and
	// its short form under templates/short/: the embedded set, or a test's.
	templates  fs.FS
	template   string
	quoteName  string
	quote      func(string) string
	literal    string
	newKey     string
	formatName string
	// format, when set, lays out the rendered text the way the language's
	// own formatter would (gofmt for Go), so the snippet pastes clean.
	format     func([]byte) ([]byte, error)
	typescript bool
	needs      []contract.SnippetNeed
	check      []string
}

// formatters are the formatters a registry row's Snippet.Format may name.
var formatters = map[string]func([]byte) ([]byte, error){
	"gofmt": format.Source,
}

// languages is the snippet table: contract.LanguageTable's languages, in
// its order, each as its row's Snippet spec describes it. TestLanguageRegistry
// checks that every row's templates, quoting function and formatter exist.
var languages = func() []Language {
	out := make([]Language, 0, len(contract.LanguageTable))
	for _, reg := range contract.LanguageTable {
		out = append(out, languageOf(reg, templateFS))
	}
	return out
}()

// languageOf is the snippet table's row for a registry row, its templates
// read from fsys.
func languageOf(reg contract.Language, fsys fs.FS) Language {
	s := reg.Snippet
	return Language{
		Name:       reg.Name,
		Title:      reg.Title,
		FileName:   s.FileName,
		Library:    s.Library,
		Runtime:    s.Runtime,
		Build:      s.Build,
		Run:        s.Run,
		templates:  fsys,
		template:   s.Template,
		quoteName:  s.Quote,
		quote:      quoters[s.Quote],
		literal:    s.Literal,
		newKey:     s.NewKey,
		formatName: s.Format,
		format:     formatters[s.Format],
		typescript: s.TypeScript,
		needs:      s.Needs,
		check:      s.Check,
	}
}

// Languages returns the snippet languages in display order.
func Languages() []Language {
	return append([]Language(nil), languages...)
}

// LanguagesFor returns the languages the contract's sdk.languages names, in
// that order; every language, in table order, when the contract has no sdk
// section. The Retrying page shows these as tabs.
func LanguagesFor(c *contract.Contract) []Language {
	if c.SDK == nil || len(c.SDK.Languages) == 0 {
		return Languages()
	}
	var out []Language
	for _, name := range c.SDK.Languages {
		if l, ok := LanguageNamed(name); ok && !slices.ContainsFunc(out, func(x Language) bool { return x.Name == name }) {
			out = append(out, l)
		}
	}
	return out
}

// LanguageNamed returns the language called name.
func LanguageNamed(name string) (Language, bool) {
	for _, l := range languages {
		if l.Name == name {
			return l, true
		}
	}
	return Language{}, false
}

// LanguageNames lists the names, for flag help and errors.
func LanguageNames() []string {
	out := make([]string, len(languages))
	for i, l := range languages {
		out[i] = l.Name
	}
	return out
}

// Render returns the snippet for lang implementing c's retry policy: the
// exact bytes that are published and tested.
func Render(c *contract.Contract, lang string) ([]byte, error) {
	l, ok := LanguageNamed(lang)
	if !ok {
		return nil, fmt.Errorf("unknown snippet language %q (one of %s)", lang, strings.Join(LanguageNames(), ", "))
	}
	p, err := NewPolicy(c)
	if err != nil {
		return nil, err
	}
	return l.render(p)
}

func (l Language) render(p Policy) ([]byte, error) {
	b, err := l.execute("templates/"+l.template, p)
	if err != nil {
		return nil, err
	}
	if l.formatName != "" {
		if l.format == nil {
			return nil, fmt.Errorf("%s snippet: no formatter %q (languages.go formatters)", l.Name, l.formatName)
		}
		out, err := l.format(b)
		if err != nil {
			return nil, fmt.Errorf("formatting %s snippet: %w", l.Name, err)
		}
		return out, nil
	}
	return b, nil
}

// execute renders the template at path in l.templates (the full program
// or the short form) with the language's functions.
func (l Language) execute(path string, data any) ([]byte, error) {
	if l.quote == nil {
		return nil, fmt.Errorf("%s snippet: no quoting function %q (escape.go quoters)", l.Name, l.quoteName)
	}
	if _, ok := literals[l.literal]; !ok {
		return nil, fmt.Errorf("%s snippet: no body syntax %q (literal.go literals)", l.Name, l.literal)
	}
	t, err := template.New(pathpkg.Base(path)).Option("missingkey=error").Funcs(l.funcs()).ParseFS(l.templates, path)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		return nil, fmt.Errorf("rendering %s snippet: %w", l.Name, err)
	}
	return b.Bytes(), nil
}

func (l Language) funcs() template.FuncMap {
	return template.FuncMap{
		// q is the language's string literal for a contract value.
		"q": l.quote,
		// body is the example request body as the language's literal.
		"body": func(v contract.JSONValue) string { return literals[l.literal].literal(v, l.quote) },
		// newkey mints a fresh key, once per logical request.
		"newkey": func() string { return l.newKey },
		// ms is a duration in whole milliseconds; sec in seconds.
		"ms":  func(d time.Duration) int64 { return d.Milliseconds() },
		"sec": func(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) },
		// secms is seconds from the whole milliseconds, as the short forms
		// print them (a sub-millisecond part is dropped, as Millis does).
		"secms": func(d time.Duration) string { return strconv.FormatFloat(float64(Millis(d))/1000, 'f', -1, 64) },
		// num formats a float the way every target reads it.
		"num": func(f float64) string {
			s := strconv.FormatFloat(f, 'f', -1, 64)
			if !strings.Contains(s, ".") {
				s += ".0"
			}
			return s
		},
		// qlist is the language's literals for a list of contract names,
		// joined with ", " (the brackets are the template's).
		"qlist": func(xs []string) string {
			parts := make([]string, len(xs))
			for i, x := range xs {
				parts[i] = l.quote(x)
			}
			return strings.Join(parts, ", ")
		},
		// pointer writes JSON pointer tokens back as /a/b (for comments; the
		// loader keeps tokens to letters, digits, _ and -).
		"pointer": contract.Pointer,
		// ints joins integers with ", ".
		"ints": func(xs []int) string {
			parts := make([]string, len(xs))
			for i, x := range xs {
				parts[i] = strconv.Itoa(x)
			}
			return strings.Join(parts, ", ")
		},
		// words joins integers with spaces (shell lists).
		"words": func(xs []int) string {
			parts := make([]string, len(xs))
			for i, x := range xs {
				parts[i] = strconv.Itoa(x)
			}
			return strings.Join(parts, " ")
		},
		// pyset is a Python set display; set() when empty ({} is a dict).
		"pyset": func(xs []int) string {
			if len(xs) == 0 {
				return "set()"
			}
			parts := make([]string, len(xs))
			for i, x := range xs {
				parts[i] = strconv.Itoa(x)
			}
			return "{" + strings.Join(parts, ", ") + "}"
		},
		// ts is its argument in the TypeScript variant and nothing in
		// plain JavaScript: the two share one template.
		"ts": func(s string) string {
			if l.typescript {
				return s
			}
			return ""
		},
		"logfmt":    func() string { return RetryLogFormat },
		"giveupfmt": func() string { return GiveUpLogFormat },
		"envname":   func() string { return BaseURLEnv },
	}
}
