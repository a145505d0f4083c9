package render

import (
	"bytes"
	_ "embed"
	"html"
	"io"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/alecthomas/chroma/v2"
	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/lexers"
)

// styledClasses are the chroma classes highlight.css styles differently
// from plain code text in either theme. Only these get a span: chroma's
// own formatter wraps every line in two spans and every token, whitespace
// included, in one, which made the Retrying page over 300 KB of markup for
// 1,200 lines of code; the text is the same either way.
var styledClasses = func() map[string]bool {
	m := map[string]bool{}
	rule := regexp.MustCompile(`\.chroma \.([a-z0-9]+) \{([^}]*)\}`)
	base := regexp.MustCompile(`\.chroma \{(?:[^}]*;)? *color: (#[0-9a-f]+)`)
	light, dark, _ := strings.Cut(string(chromaCSS), "@media")
	// The light theme sets no text colour for code: it is the page's.
	for _, section := range []struct{ css, text string }{{light, "#1f2328"}, {dark, ""}} {
		text := section.text
		if b := base.FindStringSubmatch(section.css); b != nil {
			text = b[1]
		}
		for _, r := range rule.FindAllStringSubmatch(section.css, -1) {
			decl := strings.TrimSpace(r[2])
			if decl == "color: "+text || decl == "color: "+text+";" {
				continue
			}
			if strings.Contains(decl, "color") || strings.Contains(decl, "font-") || strings.Contains(decl, "text-decoration") {
				m[r[1]] = true
			}
		}
	}
	return m
}()

// tokenClass is the styled class of a token type: its own, else its
// sub-category's, else its category's ("" for plain text).
func tokenClass(tt chroma.TokenType) string {
	for _, t := range []chroma.TokenType{tt, tt.SubCategory(), tt.Category()} {
		if c := chroma.StandardTypes[t]; c != "" && styledClasses[c] {
			return c
		}
	}
	return ""
}

// Highlighter highlights the code blocks of one build, each distinct block
// (language and code) once, whichever asks first: the pages, or a build
// that starts on the snippets while the Markdown pages render. It lives
// as long as one build; nothing is kept across builds.
type Highlighter struct {
	mu     sync.Mutex
	blocks map[string]*highlighted
}

type highlighted struct {
	done chan struct{} // closed once html and err are set
	html []byte
	err  error
	// shown: a page carries the block (see TestPreparedSnippetsAreShown).
	shown atomic.Bool
}

// NewHighlighter returns a Highlighter with nothing highlighted yet.
func NewHighlighter() *Highlighter {
	return &Highlighter{blocks: map[string]*highlighted{}}
}

func blockKey(lang string, code []byte) string { return lang + "\x00" + string(code) }

// claim returns the entry of a block, and mine when the caller is the
// first to ask and must highlight it (then close done).
func (h *Highlighter) claim(lang string, code []byte) (b *highlighted, mine bool) {
	key := blockKey(lang, code)
	h.mu.Lock()
	defer h.mu.Unlock()
	if b = h.blocks[key]; b != nil {
		return b, false
	}
	b = &highlighted{done: make(chan struct{})}
	h.blocks[key] = b
	return b, true
}

func (b *highlighted) fill(lang string, code []byte) {
	var out bytes.Buffer
	out.Grow(2 * len(code))
	b.err = highlight(&out, lang, code)
	b.html = out.Bytes()
	close(b.done)
}

// PrepareSnippets highlights the Retrying page's code, each language's
// short form and full program, longest first, as its fences will carry
// them: a build runs it beside the Markdown rendering so that the bulk of
// the highlighting is done, or under way, when the HTML pages need it. A
// block already claimed is left to its claimer; an error is left for the
// page that shows the block to report.
func (h *Highlighter) PrepareSnippets(in Inputs) {
	type block struct {
		lang string
		code []byte
	}
	var blocks []block
	for _, s := range in.Snippets {
		for _, code := range [][]byte{s.Short, s.Code} {
			if len(code) == 0 {
				continue
			}
			if !bytes.HasSuffix(code, []byte("\n")) { // as FencedCode writes it
				code = append(code[:len(code):len(code)], '\n')
			}
			blocks = append(blocks, block{safeFenceTag(FenceTag(s.Lang)), code})
		}
	}
	slices.SortStableFunc(blocks, func(a, b block) int { return len(b.code) - len(a.code) })
	for _, b := range blocks {
		if e, mine := h.claim(b.lang, b.code); mine {
			e.fill(b.lang, b.code)
		}
	}
}

// slowHighlight is how long chroma may take to produce one token before
// the block's result is suspect. chroma gives each regular expression
// match 250 ms of wall-clock time, read from a clock updated every 100 ms,
// and takes a match that runs out for no match: on a starved machine (a
// test under -race with dozens of processes per core) a keyword then comes
// out plain and two builds differ. A match times out only once the clock
// has moved 350 ms past its (up to 100 ms stale) reading at the start, so
// only a match of over 300 ms can, unless the clock itself was held up by
// more than the difference: with every token produced in under 100 ms,
// the clock would have to be 200 ms late. The whole block is not the
// measure: on a loaded machine a full program takes hundreds of
// milliseconds with no single match anywhere near the limit.
const slowHighlight = 100 * time.Millisecond

// highlight writes code as a focusable <pre class="chroma"> (a block wider
// than the screen scrolls, and keyboard users must reach it) with a span
// per run of same-class tokens.
//
// A slow run (see slowHighlight) is done again until two runs agree or one
// is quick, five more runs at most.
func highlight(w io.StringWriter, lang string, code []byte) error {
	out, slow, err := highlightRun(lang, code)
	for try := 0; slow && err == nil && try < 5; try++ {
		var again string
		again, slow, err = highlightRun(lang, code)
		if again == out {
			break
		}
		out = again
	}
	if err != nil {
		return err
	}
	w.WriteString(out)
	return nil
}

// highlightRun is highlightOnce; tests stand in a run that times out.
var highlightRun = highlightOnce

// highlightOnce is one highlighting of code, and whether it took long
// enough to be suspect (slowHighlight).
func highlightOnce(lang string, code []byte) (string, bool, error) {
	var b strings.Builder
	b.Grow(2 * len(code))
	longest, err := highlightTo(&b, lang, code)
	return b.String(), longest >= slowHighlight, err
}

// highlightTo writes the highlighted code to w and returns the longest
// wait for a token: every match chroma tried lies inside one such wait.
func highlightTo(w io.StringWriter, lang string, code []byte) (time.Duration, error) {
	lexer := lexers.Get(lang)
	if lexer == nil {
		lexer = lexers.Fallback
	}
	var it chroma.Iterator
	if f := fastLexerFor(lexer); f != nil {
		it = coalesce(f.Tokenise(string(code)))
	} else {
		var err error
		if it, err = chroma.Coalesce(lexer).Tokenise(nil, string(code)); err != nil {
			return 0, err
		}
	}
	var longest time.Duration
	last := time.Now()
	w.WriteString(`<pre class="chroma" tabindex="0"><code>`)
	open := ""
	var run strings.Builder
	flush := func() {
		if run.Len() == 0 {
			return
		}
		if open != "" {
			w.WriteString(`<span class="` + open + `">`)
		}
		w.WriteString(html.EscapeString(run.String()))
		if open != "" {
			w.WriteString("</span>")
		}
		run.Reset()
	}
	for tok := it(); tok != chroma.EOF; tok = it() {
		now := time.Now()
		longest = max(longest, now.Sub(last))
		last = now
		c := tokenClass(tok.Type)
		if strings.TrimSpace(tok.Value) == "" && run.Len() > 0 {
			c = open // whitespace joins the run it sits in
		}
		if c != open {
			flush()
			open = c
		}
		run.WriteString(tok.Value)
	}
	longest = max(longest, time.Since(last)) // the wait for EOF
	flush()
	w.WriteString("</code></pre>")
	return longest, nil
}

// Chroma styles for the two themes; the dark one applies under
// prefers-color-scheme: dark.
const (
	lightStyle = "github"
	darkStyle  = "github-dark"
)

var chromaFormatter = chromahtml.New(chromahtml.WithClasses(true), chromahtml.WithAllClasses(true), chromahtml.WithPreWrapper(focusablePre{}))

// focusablePre makes each code block focusable: a block wider than the
// screen scrolls, and keyboard users must be able to reach and scroll it.
type focusablePre struct{}

func (focusablePre) Start(code bool, styleAttr string) string {
	if code {
		return `<pre class="chroma" tabindex="0"><code>`
	}
	return `<pre class="chroma" tabindex="0">`
}

func (focusablePre) End(code bool) string {
	if code {
		return "</code></pre>"
	}
	return "</pre>"
}

// ChromaCSS is the highlighting style sheet (see highlight.css). It is
// generated from chroma's styles by TestChromaCSSIsCurrent (-update) and
// embedded, rather than computed at run time, because importing chroma's
// styles package parses every bundled style at process start: about 6 ms of
// every command's start-up, for a file that only changes with chroma.
func ChromaCSS() ([]byte, error) { return chromaCSS, nil }

//go:embed highlight.css
var chromaCSS []byte
