// Package render turns a contract into the integrator docs: Markdown pages
// (text/template, every contract value escaped), the SVG pictures, and the
// HTML site rendered from the same Markdown with one configured goldmark
// instance and chroma highlighting at build time.
//
// render reads the contract, the rule catalog and the rendered snippets; it
// writes nothing to disk (package site does) and starts no processes.
package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/contract/rules"
	"github.com/retryspec/retryspec/render/schedule"
	"github.com/retryspec/retryspec/render/svg"
)

// Snippet is one language's tab on the Retrying page.
type Snippet struct {
	Lang     string // "python"
	Title    string // "Python"
	FileName string // "retry.py"
	// Library is Markdown from the snippets package: the retry library and
	// the settings that express the policy.
	Library string
	// Short is the short form a reader copies: the library call with the
	// contract's settings (snippets.Short); nil shows the full program only.
	Short []byte
	// Code is exactly what snippets.Render returned: the tested bytes.
	Code []byte
}

// Inputs is everything the pages are made from.
type Inputs struct {
	Contract *contract.Contract
	// Rules is the lint catalog (rules.Catalog()); one page each.
	Rules []rules.Rule
	// Snippets are the Retrying page's language tabs, in sdk.languages order.
	Snippets []Snippet
	// NoSnippets says why there are none, when the snippets package could
	// not render this contract's policy (e.g. no endpoint takes a key).
	NoSnippets string
	// Changelog is the Markdown body of the Changelog page, written (and
	// escaped) by contract/diff; "" leaves the page out.
	Changelog string
	// CopyQuotes names, for each line of prose, the copy rules it would
	// fire (copylint on the lines, in one pass). A rule page marks each
	// catalog text that quotes what a copy rule forbids, so the build's own
	// copy check reads it as an example. Nil: each copy rule's page marks
	// its own texts.
	CopyQuotes func(lines []string) [][]string
}

// Page is one rendered Markdown page.
type Page struct {
	// Path is relative to the Markdown root, with slashes: "retrying.md",
	// "rules/key-server-derived.md".
	Path  string
	Title string
	// Description is one sentence for the front matter and the HTML
	// page's meta description.
	Description string
	// Position orders the pages in the sidebar (sidebar_position).
	Position int
	// Group is "" for the integrator pages and MaintainersGroup for the
	// lint-rule pages, which sit in their own sidebar section.
	Group    string
	Markdown []byte
}

// MaintainersGroup is the sidebar section of the lint-rule pages: they are
// for the team that owns the API, not for integrators.
const MaintainersGroup = "For API maintainers"

// RulesIndex is the Markdown path of the rule list.
const RulesIndex = "rules/index.md"

// File is a generated file other than a page (the SVG pictures).
type File struct {
	Path string
	Data []byte
}

// Picture file names, shared by the Markdown and the HTML site.
const (
	ScheduleImage = "retry-schedule.svg"
	ElapsedImage  = "retry-elapsed.svg"
	StatesImage   = "key-states.svg"
)

// Markdown renders every page and picture of the docs for in.
func Markdown(in Inputs, t *Templates) ([]Page, []File, error) {
	c := in.Contract
	ruleMarks, libraryMarks := quoteMarks(in)
	v := newView(in, libraryMarks)
	v.RuleGroups = ruleGroups(in.Rules, ruleMarks)
	type spec struct {
		tmpl, path, title, desc string
		when                    bool
	}
	// The integrator pages, in reading order: the sidebar, previous/next
	// links and sidebar_position follow this list. A new page is a row.
	specs := []spec{
		{"index", "index.md", c.API.Name + " integration guide", "How to call " + c.API.Name + " so that retries after a timeout, a dropped connection or an overload are safe.", true},
		{"retrying", "retrying.md", "Retrying requests", "Which failures to retry, how long to wait between attempts, when to stop, and the retry code for your language.", true},
		{"idempotency", "idempotency.md", "Idempotent requests", "Which endpoints take an idempotency key, how to choose one, and what a retry with the same key returns.", true},
		{"errors", "errors.md", "Errors", "Every error code of the retry and idempotency contract, and whether to retry it.", true},
		{"sdk", "sdk.md", "SDK defaults", "What the official SDKs do about retries and idempotency keys without any configuration.", c.SDK != nil},
		{"changelog", "changelog.md", "Changelog", "How the retry and idempotency contract changed, breaking changes first, with what to do about each.", in.Changelog != ""},
	}
	var pages []Page
	for _, s := range specs {
		if !s.when {
			continue
		}
		md, err := execute(t, s.tmpl, v)
		if err != nil {
			return nil, nil, err
		}
		pages = append(pages, Page{Path: s.path, Title: s.title, Description: s.desc, Position: len(pages) + 1, Markdown: md})
	}
	if len(in.Rules) > 0 {
		md, err := execute(t, "rules", v)
		if err != nil {
			return nil, nil, err
		}
		pages = append(pages, Page{Path: RulesIndex, Title: "Contract rules", Group: MaintainersGroup, Position: 1,
			Description: "The checks retryspec runs on this API's retry and idempotency contract, for the team that maintains it.", Markdown: md})
	}
	for i, r := range in.Rules {
		rv := *v
		rv.Rule = r
		rv.Marks = ruleMarks[i]
		rv.Quoted = rv.Marks != (ruleTextMarks{})
		rv.ScopeText = scopeText(r.Scope)
		md, err := execute(t, "rule", &rv)
		if err != nil {
			return nil, nil, err
		}
		pages = append(pages, Page{Path: RulePath(r.ID), Title: r.ID, Group: MaintainersGroup, Position: i + 2,
			Description: oneLine(capFirst(r.Summary)) + ".", Markdown: md})
	}
	for i := range pages {
		pages[i].Markdown = withFrontMatter(pages[i])
	}
	files := []File{
		{Path: ScheduleImage, Data: svg.Schedule(c)},
		{Path: ElapsedImage, Data: svg.Elapsed(c)},
		{Path: StatesImage, Data: svg.KeyStates(c)},
	}
	if len(in.Rules) > 0 {
		// Docusaurus reads a folder's sidebar label from this file; the
		// rule pages form their own section after the integrator pages.
		files = append(files, File{Path: "rules/_category_.json", Data: []byte(`{"label": "` + MaintainersGroup + `", "position": 90}` + "\n")})
	}
	return pages, files, nil
}

// withFrontMatter puts the YAML front matter every docs platform reads
// (title, description, sidebar_position) above the page. The strings are
// JSON-quoted, which YAML reads as double-quoted scalars, so no contract
// text can end the block or start YAML syntax.
func withFrontMatter(p Page) []byte {
	var b bytes.Buffer
	b.WriteString("---\n")
	fmt.Fprintf(&b, "title: %s\n", yamlString(p.Title))
	fmt.Fprintf(&b, "description: %s\n", yamlString(p.Description))
	fmt.Fprintf(&b, "sidebar_position: %d\n", p.Position)
	b.WriteString("---\n\n")
	b.Write(p.Markdown)
	return b.Bytes()
}

func yamlString(s string) string {
	q, _ := json.Marshal(oneLine(s))
	return string(q)
}

func execute(t *Templates, name string, v *view) ([]byte, error) {
	tmpl, ok := t.markdown[name]
	if !ok {
		return nil, fmt.Errorf("no template markdown/%s.md.tmpl", name)
	}
	var b bytes.Buffer
	b.Grow(4 << 10) // most pages are 1-3 KB
	if err := tmpl.Execute(&b, v); err != nil {
		return nil, templateError(err)
	}
	return tidy(b.Bytes()), nil
}

// tidy collapses runs of blank lines left by template conditionals and ends
// the page with one newline, so the Markdown reads as if written by hand.
func tidy(b []byte) []byte {
	lines := strings.Split(string(b), "\n")
	var out []string
	blank := 0
	inFence := ""
	for _, l := range lines {
		trimmed := strings.TrimRight(l, " \t")
		if inFence == "" && strings.HasPrefix(trimmed, "```") {
			inFence = strings.TrimRight(trimmed, "abcdefghijklmnopqrstuvwxyz0123456789+#-")
		} else if inFence != "" && trimmed == inFence {
			inFence = ""
		} else if inFence != "" {
			out = append(out, l) // code is kept byte for byte
			continue
		}
		if trimmed == "" {
			blank++
			if blank > 1 || len(out) == 0 {
				continue
			}
		} else {
			blank = 0
		}
		out = append(out, trimmed)
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return []byte(strings.Join(out, "\n") + "\n")
}

func scopeText(s rules.Scope) string {
	switch s {
	case rules.ScopeContract:
		return "the contract (retryspec check)"
	case rules.ScopeOpenAPI:
		return "the contract against an OpenAPI spec (retryspec check --openapi)"
	case rules.ScopeCopy:
		return "prose: docs and marketing copy (retryspec copy, and every build)"
	case rules.ScopeVerify:
		return "a running server (retryspec verify)"
	}
	return string(s)
}

// view is what the Markdown templates see.
type view struct {
	C        *contract.Contract
	Rules    []rules.Rule
	Snippets []snippetView
	Steps    []schedule.Step

	Statuses      []failureRow
	ConnErrors    []failureRow
	CautiousCodes string
	RetryAfter    bool
	InFlightRetry bool
	// InFlightPoll: under in_flight.response: accepted a repeat of a key
	// still in flight gets AcceptedAnswer (contract.Reply's 202 and code,
	// body AcceptedBody), which is not the result: the client polls with
	// the same key on the backoff schedule, as the snippets do.
	InFlightPoll   bool
	AcceptedAnswer contract.Conflict
	AcceptedBody   string
	Unkeyed        []contract.Endpoint
	Endpoints      []endpointRow
	// EndpointGroups: the endpoints that change state, by path prefix.
	EndpointGroups []endpointGroup
	// Reads counts the endpoints left out of the key table (reads);
	// Queries lists the QUERY operations among them.
	Reads         int
	Queries       []string
	MethodTrusted bool
	Derivations   []derivationRow

	JitterFormula  string
	JitterSentence string
	// Choices: the jitter choice and the amplification figures (view_retry.go).
	Choices         retryChoices
	AttemptTimeout  contract.Duration
	OverallDeadline bool
	Stacking        string
	ScheduleImage   string
	ElapsedImage    string
	StatesImage     string
	MismatchBody    string
	InFlightBody    string
	// ExampleRequest is the keyed request the Idempotent requests page
	// shows (view_example.go), "" without a keyed endpoint.
	ExampleRequest string
	// Repeat is the first-sent window and the result header
	// (view_repeatability.go); its zero value when the contract has neither.
	Repeat repeatView
	// GraphQL is the mutation document and the conflicts as error entries
	// (view_graphql.go); its zero value unless key_in is graphql.
	GraphQL    graphQLView
	SDKRows    []languageRow
	Changelog  string
	NoSnippets string
	// RetryingQuoted: a library note on the Retrying page carries a marker.
	RetryingQuoted bool
	// CodeAt is the JSON pointer to the code in the API's error bodies
	// (api.error_body.code_at), "" when the contract does not say.
	CodeAt string
	// ErrorMediaType is the Content-Type of the API's error bodies.
	ErrorMediaType string
	// StoredRows say, class by class, whether a retry with the same key
	// gets the stored answer or runs the request again
	// (contract.Idempotency.Stores).
	StoredRows []storedRow

	RuleGroups []ruleGroup

	// Rule page only.
	Rule      rules.Rule
	Quoted    bool
	Marks     ruleTextMarks
	ScopeText string
}

// ruleGroup is one section of the rule list: the rules of one scope.
type ruleGroup struct {
	Title string
	Rows  []ruleRow
}

// ruleRow is one line of the rule list; Mark names the copy rules its
// summary quotes ("" for none), so the line gets a marker.
type ruleRow struct {
	Rule rules.Rule
	Mark string
}

func ruleGroups(rs []rules.Rule, marks []ruleTextMarks) []ruleGroup {
	groups := []ruleGroup{
		{Title: "Contract checks"},
		{Title: "Contract against the OpenAPI spec"},
		{Title: "Docs and marketing copy"},
		{Title: "Other checks"},
	}
	for i, r := range rs {
		g := 3
		switch r.Scope {
		case rules.ScopeContract:
			g = 0
		case rules.ScopeOpenAPI:
			g = 1
		case rules.ScopeCopy:
			g = 2
		}
		groups[g].Rows = append(groups[g].Rows, ruleRow{Rule: r, Mark: marks[i].Summary})
	}
	return slices.DeleteFunc(groups, func(g ruleGroup) bool { return len(g.Rows) == 0 })
}

// ruleTextMarks holds, per catalog text of a rule page, the copy rules its
// marker names ("" for no marker).
type ruleTextMarks struct {
	Summary, Rationale, Fix, Bad, Good string
}

// quoteMarks decides which catalog texts of the rule pages (in rule
// order) and which library notes of the Retrying page (in snippet order)
// need a quote marker, asking CopyQuotes about every line at once, each
// exactly as its page will carry it.
func quoteMarks(in Inputs) ([]ruleTextMarks, []string) {
	rm := make([]ruleTextMarks, len(in.Rules))
	lm := make([]string, len(in.Snippets))
	if in.CopyQuotes == nil {
		for i, r := range in.Rules {
			if r.Scope == rules.ScopeCopy {
				rm[i] = ruleTextMarks{Summary: r.ID, Rationale: r.ID, Fix: r.ID}
				if r.Bad != "" {
					rm[i].Bad = r.ID
				}
			}
		}
		return rm, lm
	}
	var lines []string
	var sets []func(string)
	ask := func(line string, set func(string)) {
		if line = strings.Join(strings.Fields(line), " "); line != "" {
			lines = append(lines, line)
			sets = append(sets, set)
		}
	}
	for i, r := range in.Rules {
		m := &rm[i]
		ask(EscapeMarkdown(capFirst(oneLine(r.Summary))), func(s string) { m.Summary = s })
		ask(EscapeMarkdown(oneLine(r.Rationale)), func(s string) { m.Rationale = s })
		ask(EscapeMarkdown(capFirst(oneLine(r.Fix))), func(s string) { m.Fix = s })
		if r.Scope == rules.ScopeCopy { // contract rules show YAML in code blocks
			if r.Bad != "" {
				ask("> "+EscapeMarkdown(oneLine(r.Bad)), func(s string) { m.Bad = s })
			}
			if r.Good != "" {
				ask("> "+EscapeMarkdown(oneLine(r.Good)), func(s string) { m.Good = s })
			}
		}
	}
	for i, sn := range in.Snippets {
		ask(oneLine(sn.Library), func(s string) { lm[i] = s })
	}
	for i, ids := range in.CopyQuotes(lines) {
		if i < len(sets) && len(ids) > 0 {
			ids = slices.Clone(ids)
			slices.Sort(ids)
			sets[i](strings.Join(slices.Compact(ids), " "))
		}
	}
	return rm, lm
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

type snippetView struct {
	Snippet
	FenceTag string
	// Lines counts the full program's lines, for its disclosure.
	Lines int
	// LibraryLine is the library note on one line, so one marker covers
	// it; LibraryMark names the copy rules it trips ("" for none).
	LibraryLine, LibraryMark string
}

type failureRow struct{ Label, Retry, Why string }

type endpointRow struct {
	contract.Endpoint
	MethodNotIdempotent bool
	Note                string
}

// endpointGroup is one section of the key table: the state-changing
// endpoints under one path prefix.
type endpointGroup struct {
	Title string
	Rows  []endpointRow
}

type derivationRow struct{ Title, Explain, Example string }

type languageRow struct{ Title string }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
