package contract

// Language is one snippet and SDK language, the whole of what the program
// knows about it besides its template files: the name sdk.languages
// writes, the title on tabs and tables, the code fence tag docs platforms
// and chroma highlight it by, and how package snippets writes, runs and
// checks its program. Adding a language is a row here plus its templates
// (snippets/README.md); TestLanguageRegistry in package snippets proves
// nothing else lists languages.
type Language struct {
	Name     string
	Title    string
	FenceTag string
	// Default puts the language in sdk.languages when the sdk section
	// leaves the list out.
	Default bool
	// Snippet is read by package snippets only: it is data so that the
	// row is the language's one entry in the program, not a model of
	// anything in retryspec.yaml.
	Snippet SnippetSpec
}

// SnippetSpec is how package snippets renders and runs a language's
// program. Build and Run are argument lists run in the snippet's folder;
// "{file}" stands for the snippet's file name and "{jars}" for the folder
// of Java libraries (see snippets/run). Build may be empty.
type SnippetSpec struct {
	// FileName is the file the snippet is written to.
	FileName string
	// Template names the full program's template in snippets/templates;
	// the short form for the Retrying page is snippets/templates/short/
	// under the same name. Two languages may share one (TypeScript is
	// Node's with types).
	Template string
	// Quote names the function in package snippets (escape.go) that
	// writes a contract string as the language's literal: "PythonString".
	Quote string
	// Literal names the syntax (snippets/literal.go) the example body is
	// written in: "PythonDict", or "JSONText" for the JSON as a string.
	Literal string
	// NewKey is the expression that mints a fresh idempotency key (a
	// UUID v4, or 128 random bits in hex) once per logical request, in the full program and in the
	// short form alike: "str(uuid.uuid4())".
	NewKey string
	// Format, when set, names the formatter the rendered text goes
	// through, so the snippet pastes clean: "gofmt".
	Format string
	// TypeScript keeps the template's {{ts "..."}} parts: the TypeScript
	// variant of the Node template.
	TypeScript bool
	// Library names the retry library and the settings that express the
	// policy, as Markdown for the Retrying page.
	Library string
	// Runtime is the program a machine needs to run the snippet.
	Runtime string
	Build   []string
	Run     []string
	// Check parses the program without running it, the same way: the
	// tests run it on snippets rendered from hostile contract strings.
	Check []string
	// Needs is what the snippet needs on the machine that runs it,
	// runtime first: a later need is only checked once the earlier ones
	// are met.
	Needs []SnippetNeed
}

// SnippetNeed is one thing a language's snippet needs on the machine that
// runs it (its runtime, a library), how to tell whether it is there, and
// how to get it. `snippets test` checks every need before it runs
// anything, so a missing library is one line naming the package, not a
// page of tracebacks from every scenario.
type SnippetNeed struct {
	// What is named in the message: "tenacity>=8.3".
	What string
	// Install says how to get it, in the user's own tools (never a script
	// of this repository): "pip install 'tenacity>=8.3'". {cache} stands
	// for the folder snippets look in for jars and npm packages.
	Install string
	// One of the checks below. Program: an executable on PATH, or a
	// command placeholder such as {tsc}.
	Program string
	// Files: a glob (placeholders allowed) one of whose matches contains
	// Match in its name.
	Files, Match string
	// Probe: a small program that exits 0 only when the need is met.
	Probe *SnippetProbe
}

// SnippetProbe is a program run in the snippet's runtime to check a library.
type SnippetProbe struct {
	FileName string
	Source   string
	Run      []string
}

const r4jVersion, slf4jVersion = "2.3.0", "1.7.30"

// LanguageTable is every snippet language, in display order: the one list.
// The loader, the JSON Schema, the renderer's titles and fence tags and the
// snippet table all read it.
var LanguageTable = []Language{
	{Name: "python", Title: "Python", FenceTag: "python", Default: true, Snippet: SnippetSpec{
		FileName: "snippet.py", Template: "python.py.tmpl", Quote: "PythonString", Literal: "PythonDict", NewKey: "str(uuid.uuid4())", Runtime: "python3",
		Library: "[tenacity](https://tenacity.readthedocs.io/) (`pip install tenacity`): `wait_random_exponential` is full jitter; " +
			"`stop_after_attempt | stop_before_delay` bounds attempts and total time; `before_sleep` logs each retry.",
		Run:   []string{"python3", "{file}"},
		Check: []string{"python3", "-c", "import ast,sys; ast.parse(open(sys.argv[1]).read())", "{file}"},
		Needs: []SnippetNeed{
			{What: "Python 3", Install: "python.org/downloads, or your package manager's python3", Program: "python3"},
			{What: "tenacity>=8.3", Install: "pip install 'tenacity>=8.3'", Probe: &SnippetProbe{
				FileName: "probe.py",
				// stop_before_delay arrived in 8.3.
				Source: "from tenacity import stop_before_delay, wait_random_exponential\n",
				Run:    []string{"python3", "{file}"},
			}},
		},
	}},
	{Name: "node", Title: "Node.js", FenceTag: "javascript", Default: true, Snippet: SnippetSpec{
		FileName: "snippet.mjs", Template: "node.mjs.tmpl", Quote: "JSString", Literal: "JSObject", NewKey: "randomUUID()", Runtime: "node",
		Library: "Node's built-in `fetch` and `AbortSignal.timeout` (Node 18+). No npm package is used: `exponential-backoff`, " +
			"the common choice, cannot take the server's `Retry-After` as the next wait nor bound the total elapsed time.",
		Run:   []string{"node", "{file}"},
		Check: []string{"node", "--check", "{file}"},
		Needs: []SnippetNeed{
			{What: "Node.js 18 or later", Install: "nodejs.org, or your package manager's nodejs", Program: "node"},
			{What: "Node.js 18 or later", Install: "nodejs.org; this node has no built-in fetch", Probe: &SnippetProbe{
				FileName: "probe.mjs",
				Source:   "if (typeof fetch !== 'function' || typeof AbortSignal.timeout !== 'function') process.exit(1)\n",
				Run:      []string{"node", "{file}"},
			}},
		},
	}},
	{Name: "typescript", Title: "TypeScript", FenceTag: "typescript", Snippet: SnippetSpec{
		FileName: "snippet.mts", Template: "node.mjs.tmpl", Quote: "JSString", Literal: "JSObject", NewKey: "randomUUID()", TypeScript: true, Runtime: "node",
		Library: "The Node snippet with types, checked by `tsc --strict`: built-in `fetch`, no npm package (see Node.js).",
		Build:   []string{"{tsc}", "--strict", "--target", "es2022", "--module", "nodenext", "--moduleResolution", "nodenext", "--types", "node", "--typeRoots", "{typeroots}", "--outDir", ".", "{file}"},
		Run:     []string{"node", "snippet.mjs"},
		Check:   []string{"{tsc}", "--strict", "--noEmit", "--target", "es2022", "--module", "nodenext", "--moduleResolution", "nodenext", "--types", "node", "--typeRoots", "{typeroots}", "{file}"},
		Needs: []SnippetNeed{
			{What: "Node.js 18 or later", Install: "nodejs.org, or your package manager's nodejs", Program: "node"},
			{What: "TypeScript 5 and @types/node", Install: "npm install --prefix {cache} typescript@5 @types/node@20", Program: "{tsc}"},
			{What: "@types/node", Install: "npm install --prefix {cache} @types/node@20", Files: "{typeroots}/*", Match: "node"},
		},
	}},
	{Name: "go", Title: "Go", FenceTag: "go", Default: true, Snippet: SnippetSpec{
		FileName: "snippet.go", Template: "go.go.tmpl", Quote: "GoString", Literal: "GoMap", NewKey: "newKey()", Format: "gofmt", Runtime: "go",
		Library: "The standard library (`net/http`, `context`, `math/rand/v2`). The well-known Go backoff packages offer " +
			"exponential backoff with a randomization factor, not the contract's jitter formulas, and no Retry-After hook.",
		Build: []string{"go", "build", "-o", "snippet", "{file}"},
		Run:   []string{"./snippet"},
		Check: []string{"go", "vet", "{file}"},
		Needs: []SnippetNeed{{What: "Go", Install: "go.dev/dl", Program: "go"}},
	}},
	{Name: "java", Title: "Java", FenceTag: "java", Default: true, Snippet: SnippetSpec{
		FileName: "Snippet.java", Template: "java.java.tmpl", Quote: "JavaString", Literal: "JSONText", NewKey: "UUID.randomUUID().toString()", Runtime: "java",
		Library: "[Resilience4j](https://resilience4j.readme.io/docs/retry) `resilience4j-retry` 2.x: `RetryConfig` with `maxAttempts`, " +
			"`retryOnResult`/`retryOnException` for the allowlist and an `IntervalBiFunction` for the jitter formula and `Retry-After`; " +
			"the `onRetry` event logs each retry. Java 17's `HttpClient` sends the request.",
		// javac once, then one JVM per run: a single-file source launch
		// (java -cp 'jars/*' Snippet.java) compiles on every start, which
		// triples the CPU time of each run on a small machine.
		Build: []string{"javac", "-cp", "{jars}", "-d", ".", "{file}"},
		Run:   []string{"java", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", ".:{jars}", "Snippet"},
		Check: []string{"javac", "-cp", "{jars}", "-d", ".", "{file}"},
		Needs: []SnippetNeed{
			{What: "a JDK 17 or later", Install: "adoptium.net, or your package manager's openjdk-17-jdk", Program: "javac"},
			{What: "a JDK 17 or later", Install: "adoptium.net, or your package manager's openjdk-17-jdk", Program: "java"},
			{What: "Resilience4j " + r4jVersion, Install: "mvn dependency:copy -Dartifact=io.github.resilience4j:resilience4j-retry:" + r4jVersion +
				" -DoutputDirectory={cache}/jars, and the same for resilience4j-core:" + r4jVersion + ", org.slf4j:slf4j-api:" + slf4jVersion +
				" and org.slf4j:slf4j-nop:" + slf4jVersion, Files: "{jars}", Match: "resilience4j-retry"},
			{What: "resilience4j-core " + r4jVersion, Install: "mvn dependency:copy -Dartifact=io.github.resilience4j:resilience4j-core:" + r4jVersion +
				" -DoutputDirectory={cache}/jars", Files: "{jars}", Match: "resilience4j-core"},
			{What: "slf4j-api " + slf4jVersion, Install: "mvn dependency:copy -Dartifact=org.slf4j:slf4j-api:" + slf4jVersion +
				" -DoutputDirectory={cache}/jars", Files: "{jars}", Match: "slf4j-api"},
		},
	}},
	{Name: "ruby", Title: "Ruby", FenceTag: "ruby", Default: true, Snippet: SnippetSpec{
		FileName: "snippet.rb", Template: "ruby.rb.tmpl", Quote: "RubyString", Literal: "RubyHash", NewKey: "SecureRandom.uuid", Runtime: "ruby",
		Library: "The standard library (`net/http`, `securerandom`, `json`). The `retriable` gem randomizes its intervals " +
			"by a factor rather than the contract's jitter formula and cannot wait out a `Retry-After`.",
		Run:   []string{"ruby", "{file}"},
		Check: []string{"ruby", "-c", "{file}"},
		Needs: []SnippetNeed{{What: "Ruby", Install: "ruby-lang.org, or your package manager's ruby", Program: "ruby"}},
	}},
	{Name: "curl", Title: "curl", FenceTag: "bash", Default: true, Snippet: SnippetSpec{
		FileName: "snippet.sh", Template: "curl.sh.tmpl", Quote: "ShellQuote", Literal: "JSONText", NewKey: "$(od -An -N16 -tx1 /dev/urandom | tr -d ' \\n')", Runtime: "curl",
		Library: "A POSIX `sh` loop around `curl` (curl's own `--retry` retries any 5xx and cannot keep to an allowlist, " +
			"a cautious 500 or the contract's jitter).",
		Run:   []string{"sh", "{file}"},
		Check: []string{"sh", "-n", "{file}"},
		Needs: []SnippetNeed{
			{What: "curl", Install: "curl.se, or your package manager's curl", Program: "curl"},
			{What: "a POSIX sh", Install: "your system's sh", Program: "sh"},
		},
	}},
}

// LanguageNamed returns the language called name.
func LanguageNamed(name string) (Language, bool) {
	for _, l := range LanguageTable {
		if l.Name == name {
			return l, true
		}
	}
	return Language{}, false
}

// Languages are the names sdk.languages accepts; DefaultLanguages the list
// it takes when the sdk section leaves it out.
var (
	Languages        = languageNames(false)
	DefaultLanguages = languageNames(true)
)

func languageNames(defaultsOnly bool) []string {
	var out []string
	for _, l := range LanguageTable {
		if l.Default || !defaultsOnly {
			out = append(out, l.Name)
		}
	}
	return out
}
