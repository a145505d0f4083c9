package snippets

// Need is one thing a language's snippet needs on the machine that runs it
// (its runtime, a library), how to tell whether it is there, and the line
// that tells the user how to get it. `snippets test` checks every need
// before it runs anything, so a missing library is one line naming the
// package, not a page of tracebacks from every scenario.
type Need struct {
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
	Probe *Probe
}

// Probe is a program run in the snippet's runtime to check a library.
type Probe struct {
	FileName string
	Source   string
	Run      []string
}

// Message is the one line printed for a missing need.
func (n Need) Message(cache string) string {
	return "install " + n.What + " (" + expandCache(n.Install, cache) + ")"
}

func expandCache(s, cache string) string {
	if cache == "" {
		cache = "~/.cache/retryspec/snippets"
	}
	out := []byte{}
	for i := 0; i < len(s); i++ {
		if s[i] == '{' && len(s)-i >= len("{cache}") && s[i:i+len("{cache}")] == "{cache}" {
			out = append(out, cache...)
			i += len("{cache}") - 1
			continue
		}
		out = append(out, s[i])
	}
	return string(out)
}

const r4jVersion, slf4jVersion = "2.3.0", "1.7.30"

// needs lists each language's needs, runtime first: a later need is only
// checked once the earlier ones are met.
var needs = map[string][]Need{
	"python": {
		{What: "Python 3", Install: "python.org/downloads, or your package manager's python3", Program: "python3"},
		{What: "tenacity>=8.3", Install: "pip install 'tenacity>=8.3'", Probe: &Probe{
			FileName: "probe.py",
			// stop_before_delay arrived in 8.3.
			Source: "from tenacity import stop_before_delay, wait_random_exponential\n",
			Run:    []string{"python3", "{file}"},
		}},
	},
	"node": {
		{What: "Node.js 18 or later", Install: "nodejs.org, or your package manager's nodejs", Program: "node"},
		{What: "Node.js 18 or later", Install: "nodejs.org; this node has no built-in fetch", Probe: &Probe{
			FileName: "probe.mjs",
			Source:   "if (typeof fetch !== 'function' || typeof AbortSignal.timeout !== 'function') process.exit(1)\n",
			Run:      []string{"node", "{file}"},
		}},
	},
	"typescript": {
		{What: "Node.js 18 or later", Install: "nodejs.org, or your package manager's nodejs", Program: "node"},
		{What: "TypeScript 5 and @types/node", Install: "npm install --prefix {cache} typescript@5 @types/node@20", Program: "{tsc}"},
		{What: "@types/node", Install: "npm install --prefix {cache} @types/node@20", Files: "{typeroots}/*", Match: "node"},
	},
	"go": {
		{What: "Go", Install: "go.dev/dl", Program: "go"},
	},
	"java": {
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
	"ruby": {
		{What: "Ruby", Install: "ruby-lang.org, or your package manager's ruby", Program: "ruby"},
	},
	"curl": {
		{What: "curl", Install: "curl.se, or your package manager's curl", Program: "curl"},
		{What: "a POSIX sh", Install: "your system's sh", Program: "sh"},
	},
}

// Needs lists what the language's snippet needs, runtime first.
func (l Language) Needs() []Need {
	return append([]Need(nil), needs[l.Name]...)
}
