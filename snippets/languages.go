package snippets

import (
	"bytes"
	"embed"
	"fmt"
	"go/format"
	"slices"
	"strconv"
	"strings"
	"text/template"
	"time"

	"github.com/retryspec/retryspec/contract"
)

//go:embed templates/*.tmpl
var templateFS embed.FS

// Language is one row of the snippet table: how to name, render and run a
// snippet. Build and Run are argument lists run in the snippet's folder;
// "{file}" stands for the snippet's file name and "{jars}" for the folder of
// Java libraries (see the runner). Build may be empty.
type Language struct {
	Name     string // python, node, typescript, go, java, ruby, curl
	Title    string // shown on tabs: "Python" (both from contract.LanguageTable)
	FileName string // the file the snippet is written to
	// Library names the retry library and the settings that express the
	// policy, as Markdown for the Retrying page.
	Library string
	// Runtime is the program a machine needs to run the snippet.
	Runtime string
	Build   []string
	Run     []string

	template string
	quote    func(string) string
	// format, when set, lays out the rendered text the way the language's
	// own formatter would (gofmt for Go), so the snippet pastes clean.
	format func([]byte) ([]byte, error)
}

// implementations are how each language of contract.LanguageTable is
// rendered and run, keyed by its name; the registry gives the name, the
// title and the order.
var implementations = map[string]Language{
	"python": {
		FileName: "snippet.py", Runtime: "python3",
		Library: "[tenacity](https://tenacity.readthedocs.io/) (`pip install tenacity`): `wait_random_exponential` is full jitter; " +
			"`stop_after_attempt | stop_before_delay` bounds attempts and total time; `before_sleep` logs each retry.",
		Run:      []string{"python3", "{file}"},
		template: "python.py.tmpl", quote: PythonString,
	},
	"node": {
		FileName: "snippet.mjs", Runtime: "node",
		Library: "Node's built-in `fetch` and `AbortSignal.timeout` (Node 18+). No npm package is used: `exponential-backoff`, " +
			"the common choice, cannot take the server's `Retry-After` as the next wait nor bound the total elapsed time.",
		Run:      []string{"node", "{file}"},
		template: "node.mjs.tmpl", quote: JSString,
	},
	"typescript": {
		FileName: "snippet.mts", Runtime: "node",
		Library:  "The Node snippet with types, checked by `tsc --strict`: built-in `fetch`, no npm package (see Node.js).",
		Build:    []string{"{tsc}", "--strict", "--target", "es2022", "--module", "nodenext", "--moduleResolution", "nodenext", "--types", "node", "--typeRoots", "{typeroots}", "--outDir", ".", "{file}"},
		Run:      []string{"node", "snippet.mjs"},
		template: "node.mjs.tmpl", quote: JSString,
	},
	"go": {
		FileName: "snippet.go", Runtime: "go",
		Library: "The standard library (`net/http`, `context`, `math/rand/v2`). The well-known Go backoff packages offer " +
			"exponential backoff with a randomization factor, not the contract's jitter formulas, and no Retry-After hook.",
		Build:    []string{"go", "build", "-o", "snippet", "{file}"},
		Run:      []string{"./snippet"},
		template: "go.go.tmpl", quote: GoString, format: format.Source,
	},
	"java": {
		FileName: "Snippet.java", Runtime: "java",
		Library: "[Resilience4j](https://resilience4j.readme.io/docs/retry) `resilience4j-retry` 2.x: `RetryConfig` with `maxAttempts`, " +
			"`retryOnResult`/`retryOnException` for the allowlist and an `IntervalBiFunction` for the jitter formula and `Retry-After`; " +
			"the `onRetry` event logs each retry. Java 17's `HttpClient` sends the request.",
		// javac once, then one JVM per run: a single-file source launch
		// (java -cp 'jars/*' Snippet.java) compiles on every start, which
		// triples the CPU time of each run on a small machine.
		Build:    []string{"javac", "-cp", "{jars}", "-d", ".", "{file}"},
		Run:      []string{"java", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", ".:{jars}", "Snippet"},
		template: "java.java.tmpl", quote: JavaString,
	},
	"ruby": {
		FileName: "snippet.rb", Runtime: "ruby",
		Library: "The standard library (`net/http`, `securerandom`, `json`). The `retriable` gem randomizes its intervals " +
			"by a factor rather than the contract's jitter formula and cannot wait out a `Retry-After`.",
		Run:      []string{"ruby", "{file}"},
		template: "ruby.rb.tmpl", quote: RubyString,
	},
	"curl": {
		FileName: "snippet.sh", Runtime: "curl",
		Library: "A POSIX `sh` loop around `curl` (curl's own `--retry` retries any 5xx and cannot keep to an allowlist, " +
			"a cautious 500 or the contract's jitter).",
		Run:      []string{"sh", "{file}"},
		template: "curl.sh.tmpl", quote: ShellQuote,
	},
}

// languages is the snippet table: contract.LanguageTable's languages, in
// its order, each with its implementation. A language without one is left
// out here and reported by TestLanguageRegistry.
var languages = func() []Language {
	var out []Language
	for _, reg := range contract.LanguageTable {
		if l, ok := implementations[reg.Name]; ok {
			l.Name, l.Title = reg.Name, reg.Title
			out = append(out, l)
		}
	}
	return out
}()

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
	t, err := template.New(l.template).Option("missingkey=error").Funcs(l.funcs()).ParseFS(templateFS, "templates/"+l.template)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, p); err != nil {
		return nil, fmt.Errorf("rendering %s snippet: %w", l.Name, err)
	}
	if l.format != nil {
		out, err := l.format(b.Bytes())
		if err != nil {
			return nil, fmt.Errorf("formatting %s snippet: %w", l.Name, err)
		}
		return out, nil
	}
	return b.Bytes(), nil
}

func (l Language) funcs() template.FuncMap {
	return template.FuncMap{
		// q is the language's string literal for a contract value.
		"q": l.quote,
		// ms is a duration in whole milliseconds; sec in seconds.
		"ms":  func(d time.Duration) int64 { return d.Milliseconds() },
		"sec": func(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) },
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
			if l.Name == "typescript" {
				return s
			}
			return ""
		},
		"logfmt":    func() string { return RetryLogFormat },
		"giveupfmt": func() string { return GiveUpLogFormat },
		"envname":   func() string { return BaseURLEnv },
	}
}
