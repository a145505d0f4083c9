package render

import (
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/dlclark/regexp2/v2"
	"github.com/dlclark/regexp2/v2/syntax"
)

// fastLexer tokenises exactly as chroma's RegexLexer does, for about half
// the CPU. At each position chroma runs a state's rules in order, each an
// expression anchored there (\G), until one matches: a token after ten
// failing rules costs eleven matcher runs, each with its setup (a runner
// from a pool, a match object), and most of a build's highlighting time
// went to runs that fail. Most rules can only match text that starts
// with one of a known set of characters (regexp2 computes the set, its
// own unanchored search skips by it), and some only at the start of a
// line or of the text: a rule is not run where that rules it out. Every
// rule that is run is run as chroma runs it, in chroma's order, so the
// match taken is the one chroma takes.
//
// The rules, mutators and emitters are chroma's own; a nested lexer (an
// emitter that tokenises a group) runs through chroma itself.
// TestFastLexerMatchesChroma holds the two to the same tokens.
type fastLexer struct {
	lexer *chroma.RegexLexer
	rules chroma.CompiledRules
	// gates holds where each rule of a state can match, in the
	// state's rule order.
	gates map[string][]ruleGate
}

// ruleGate says where a rule can start a match.
type ruleGate struct {
	// first, when not nil, holds every character a match can start
	// with (regexp2's prefix set); ascii is its ASCII part as a bitmap.
	first *syntax.CharSet
	ascii [2]uint64
	// bol: only at the start of a line; bot: only at the start of the
	// text.
	bol, bot bool
}

func (g *ruleGate) open(text []rune, pos int) bool {
	switch {
	case g.bot && pos != 0:
		return false
	case g.bol && pos != 0 && text[pos-1] != '\n':
		return false
	case g.first == nil:
		return true
	}
	if ch := text[pos]; ch >= 0 && ch < 128 {
		return g.ascii[ch/64]&(1<<(ch%64)) != 0
	}
	return g.first.CharIn(text[pos])
}

var (
	fastLexersMu sync.Mutex
	fastLexers   = map[*chroma.RegexLexer]*fastLexer{}
)

// fastLexerFor returns the fastLexer of a chroma lexer, compiled once per
// process as chroma compiles its own lexers; nil when the lexer is not a
// plain RegexLexer (chroma then tokenises).
// matchTimeout guards one regular-expression match against a runaway
// pattern. Chroma uses 250 ms; on a saturated machine a match can wait that
// long for a CPU, and the timed-out match turns the rest of a code block
// into Error tokens, so the highlighted page would depend on the machine's
// load. A runaway pattern is caught by any bound, so this one is far above
// what scheduling delays reach.
const matchTimeout = 10 * time.Second

func fastLexerFor(l chroma.Lexer) *fastLexer {
	rl, ok := l.(*chroma.RegexLexer)
	if !ok {
		return nil
	}
	fastLexersMu.Lock()
	defer fastLexersMu.Unlock()
	if f, ok := fastLexers[rl]; ok {
		return f
	}
	f, err := compileFastLexer(rl)
	if err != nil {
		f = nil
	}
	fastLexers[rl] = f
	return f
}

// compileFastLexer compiles the rules as chroma's RegexLexer.maybeCompile
// does, lexer mutators (include, combined) applied the same way.
func compileFastLexer(rl *chroma.RegexLexer) (*fastLexer, error) {
	raw, err := rl.Rules()
	if err != nil {
		return nil, err
	}
	cfg := rl.Config()
	flags := ""
	if !cfg.NotMultiline {
		flags += "m"
	}
	if cfg.CaseInsensitive {
		flags += "i"
	}
	if cfg.DotAll {
		flags += "s"
	}
	f := &fastLexer{lexer: rl, rules: chroma.CompiledRules{}, gates: map[string][]ruleGate{}}
	gate := map[*chroma.CompiledRule]ruleGate{}
	for state, rs := range raw {
		f.rules[state] = nil
		for i, r := range rs {
			pattern := "(?:" + r.Pattern + ")"
			if flags != "" {
				pattern = "(?" + flags + ")" + pattern
			}
			cr := &chroma.CompiledRule{Rule: r}
			if cr.Regexp, err = regexp2.Compile(`\G` + pattern); err != nil {
				return nil, fmt.Errorf("%s.%d: %w", state, i, err)
			}
			cr.Regexp.MatchTimeout = matchTimeout
			g, err := gateOf(pattern)
			if err != nil {
				return nil, fmt.Errorf("%s.%d: %w", state, i, err)
			}
			gate[cr] = g
			f.rules[state] = append(f.rules[state], cr)
		}
	}
restart:
	seen := map[chroma.LexerMutator]bool{}
	for state := range f.rules {
		for i := range len(f.rules[state]) {
			if m, ok := f.rules[state][i].Mutator.(chroma.LexerMutator); ok {
				if seen[m] {
					return nil, fmt.Errorf("saw mutator %T twice", m)
				}
				seen[m] = true
				if err := m.MutateLexer(f.rules, state, i); err != nil {
					return nil, err
				}
				goto restart
			}
		}
	}
	for state, rs := range f.rules {
		for _, r := range rs {
			f.gates[state] = append(f.gates[state], gate[r])
		}
	}
	return f, nil
}

// gateOf reads where a pattern (without chroma's \G) can start a match
// from regexp2's analysis of it.
func gateOf(pattern string) (ruleGate, error) {
	tree, err := syntax.Parse(pattern, syntax.ParseOptions{})
	if err != nil {
		return ruleGate{}, err
	}
	code, err := syntax.Write(tree)
	if err != nil {
		return ruleGate{}, err
	}
	g := ruleGate{
		bol: code.Anchors&syntax.AnchorBol != 0,
		bot: code.Anchors&syntax.AnchorBeginning != 0,
	}
	// A case-insensitive set is left alone: regexp2 folds case while
	// matching, and the gate would have to fold it the same way.
	if p := code.FcPrefix; p != nil && !p.CaseInsensitive {
		g.first = &p.PrefixSet
		for ch := rune(0); ch < 128; ch++ {
			if g.first.CharIn(ch) {
				g.ascii[ch/64] |= 1 << (ch % 64)
			}
		}
	}
	return g, nil
}

// Tokenise is chroma.RegexLexer.Tokenise with the default options.
func (f *fastLexer) Tokenise(text string) chroma.Iterator {
	text = ensureLF(text)
	newlineAdded := false
	if f.lexer.Config().EnsureNL && !strings.HasSuffix(text, "\n") {
		text += "\n"
		newlineAdded = true
	}
	t := &fastState{f: f, st: &chroma.LexerState{
		Lexer:          f.lexer,
		Registry:       lexers.GlobalLexerRegistry,
		Text:           []rune(text),
		Stack:          []string{"root"},
		Rules:          f.rules,
		MutatorContext: map[any]any{},
	}}
	t.end = len(t.st.Text)
	if newlineAdded {
		t.end--
	}
	return t.next
}

// ensureLF turns \r\n and \r into \n, as chroma's default EnsureLF.
func ensureLF(text string) string {
	if !strings.Contains(text, "\r") {
		return text
	}
	return strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n")
}

type fastState struct {
	f     *fastLexer
	st    *chroma.LexerState
	end   int
	iters []chroma.Iterator
}

// next is chroma's LexerState.Iterator, rules gated (see fastLexer).
func (t *fastState) next() chroma.Token {
	l := t.st
	for l.Pos < t.end && len(l.Stack) > 0 {
		if tok, ok := t.drain(); ok {
			return tok
		}
		l.State = l.Stack[len(l.Stack)-1]
		selected, ok := l.Rules[l.State]
		if !ok {
			panic("unknown state " + l.State)
		}
		ruleIndex, rule, m := t.match(selected, t.f.gates[l.State])
		if m == nil {
			// As chroma (from Pygments): a newline no rule takes
			// empties the stack.
			if l.Text[l.Pos] == '\n' && l.State != "root" {
				l.Stack = []string{"root"}
				continue
			}
			l.Pos++
			return chroma.Token{Type: chroma.Error, Value: string(l.Text[l.Pos-1 : l.Pos])}
		}
		gs := m.Groups()
		groups := make([]string, 0, len(gs))
		named := make(map[string]string, len(gs))
		for _, g := range gs {
			v := g.String()
			named[g.Name] = v
			groups = append(groups, v)
		}
		l.Rule = ruleIndex
		l.Groups = groups
		l.NamedGroups = named
		l.Pos += utf8.RuneCountInString(groups[0])
		if rule.Mutator != nil {
			if err := rule.Mutator.Mutate(l); err != nil {
				panic(err) // as chroma
			}
		}
		if rule.Type != nil {
			t.iters = append(t.iters, rule.Type.Emit(l.Groups, l))
		}
	}
	if tok, ok := t.drain(); ok {
		return tok
	}
	if l.Pos != len(l.Text) && len(l.Stack) == 0 {
		value := string(l.Text[l.Pos:])
		l.Pos = len(l.Text)
		return chroma.Token{Type: chroma.Error, Value: value}
	}
	return chroma.EOF
}

// drain returns the next token of the emitters' iterators, if any.
func (t *fastState) drain() (chroma.Token, bool) {
	for len(t.iters) > 0 {
		n := len(t.iters) - 1
		tok := t.iters[n]()
		if tok.Type == chroma.Ignore {
			continue
		}
		if tok == chroma.EOF {
			t.iters = t.iters[:n]
			continue
		}
		return tok, true
	}
	return chroma.Token{}, false
}

// match is chroma's matchRules: the first rule that matches where the
// lexer stands, rules that cannot match there skipped.
func (t *fastState) match(rules []*chroma.CompiledRule, gates []ruleGate) (int, *chroma.CompiledRule, *regexp2.Match) {
	text, pos := t.st.Text, t.st.Pos
	for i, r := range rules {
		if !gates[i].open(text, pos) {
			continue
		}
		m, err := r.Regexp.FindRunesMatchStartingAt(text, pos)
		if err == nil && m != nil && m.RuneIndex == pos {
			return i, r, m
		}
	}
	return 0, nil, nil
}

// coalesce joins runs of tokens of one type, as chroma.Coalesce.
func coalesce(it chroma.Iterator) chroma.Iterator {
	var prev chroma.Token
	return func() chroma.Token {
		for tok := it(); tok != chroma.EOF; tok = it() {
			if len(tok.Value) == 0 {
				continue
			}
			if prev == chroma.EOF {
				prev = tok
			} else if prev.Type == tok.Type && len(prev.Value) < 8192 {
				prev.Value += tok.Value
			} else {
				out := prev
				prev = tok
				return out
			}
		}
		out := prev
		prev = chroma.EOF
		return out
	}
}
