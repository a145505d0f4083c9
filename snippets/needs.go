package snippets

import "github.com/retryspec/retryspec/contract"

// Need is one thing a language's snippet needs on the machine that runs it
// (its runtime, a library), how to tell whether it is there, and the line
// that tells the user how to get it: a need of the language's registry row
// (contract.SnippetNeed, whose fields say what each check is).
type Need contract.SnippetNeed

// Probe is a program run in the snippet's runtime to check a library.
type Probe = contract.SnippetProbe

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

// Needs lists what the language's snippet needs, runtime first.
func (l Language) Needs() []Need {
	out := make([]Need, len(l.needs))
	for i, n := range l.needs {
		out[i] = Need(n)
	}
	return out
}
