package rules

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/retryspec/retryspec/findings"
)

// TestFixesApply applies each contract rule's fix (Fixed, or Good when the
// fix is the near miss) to its Bad example and runs check again: the rule
// no longer fires, no rule fires that did not fire on Bad, and the fix
// text of every finding the rule made on Bad names each value the fix
// changes, so the text says what the patch does.
func TestFixesApply(t *testing.T) {
	for _, r := range Catalog() {
		if r.Scope != ScopeContract || r.Check == nil {
			continue
		}
		t.Run(r.ID, func(t *testing.T) {
			badDoc := example(t, r.Bad)
			fix := r.Fixed
			if fix == "" {
				fix = r.Good
			}
			fixedDoc := overlay(t, badDoc, []byte(fix))
			bad := lint(t, "bad.yaml", badDoc)
			after := lint(t, "fixed.yaml", fixedDoc)
			if fired(after, r.ID) {
				t.Errorf("the fix leaves %s firing:\n%s\nfindings: %v", r.ID, fix, after)
			}
			before := map[string]bool{}
			for _, f := range unwaived(bad) {
				before[f.Rule] = true
			}
			for _, f := range unwaived(after) {
				if !before[f.Rule] {
					t.Errorf("the fix makes %s fire, which Bad did not: %s (fix: %s)", f.Rule, f.Message, f.Fix)
				}
			}
			texts := fixTexts(bad, r.ID)
			for _, ch := range changedLeaves(t, badDoc, fixedDoc) {
				if !slices.ContainsFunc(texts, func(s string) bool { return ch.namedIn(s) }) {
					t.Errorf("the fix sets %s, which no fix text of %s names: %q", ch, r.ID, texts)
				}
			}
		})
	}
}

func fixTexts(fs []findings.Finding, id string) []string {
	var out []string
	for _, f := range fs {
		if f.Rule == id {
			out = append(out, f.Fix)
		}
	}
	return out
}

// leaf is one scalar of a YAML document: its key (the last mapping key
// on its path) and its value ("" when the fix removes it).
type leaf struct{ path, key, value string }

func (l leaf) String() string {
	if l.value == "" {
		return "removal of " + l.path
	}
	return fmt.Sprintf("%s: %s", l.path, l.value)
}

// namedIn reports whether a fix text names the leaf's key and value, or
// the key with a placeholder for a figure only the team knows (`p99:
// <measured p99>`, `because: "..."`).
func (l leaf) namedIn(text string) bool {
	if !strings.Contains(text, l.key) {
		return false
	}
	return l.value == "" || strings.Contains(text, l.value) ||
		strings.Contains(text, l.key+": <") || strings.Contains(text, l.key+`: "..."`)
}

// changedLeaves lists the scalars of fixed that differ from bad, and those
// of bad that fixed removes.
func changedLeaves(t *testing.T, bad, fixed []byte) []leaf {
	before, after := leaves(t, bad), leaves(t, fixed)
	var out []leaf
	for p, l := range after {
		if b, ok := before[p]; !ok || b.value != l.value {
			out = append(out, l)
		}
	}
	for p, l := range before {
		if _, ok := after[p]; !ok && !strings.Contains(p, "[") {
			out = append(out, leaf{path: p, key: l.key})
		}
	}
	slices.SortFunc(out, func(a, b leaf) int { return strings.Compare(a.path, b.path) })
	return out
}

func leaves(t *testing.T, doc []byte) map[string]leaf {
	var n yaml.Node
	if err := yaml.Unmarshal(doc, &n); err != nil {
		t.Fatal(err)
	}
	out := map[string]leaf{}
	var walk func(n *yaml.Node, path, key string)
	walk = func(n *yaml.Node, path, key string) {
		switch n.Kind {
		case yaml.DocumentNode:
			for _, c := range n.Content {
				walk(c, path, key)
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i].Value
				p := k
				if path != "" {
					p = path + "." + k
				}
				walk(n.Content[i+1], p, k)
			}
		case yaml.SequenceNode:
			if len(n.Content) == 0 {
				out[path] = leaf{path: path, key: key, value: "[]"}
			}
			for i, c := range n.Content {
				walk(c, fmt.Sprintf("%s[%d]", path, i), key)
			}
		case yaml.ScalarNode:
			out[path] = leaf{path: path, key: key, value: n.Value}
		}
	}
	walk(&n, "", "")
	return out
}
