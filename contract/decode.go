package contract

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// decoder walks a yaml.Node tree, collecting diagnostics instead of
// stopping at the first, so one run shows the user every problem in the
// file. Positions are not copied out: the Contract keeps the tree and
// finds a value's position when a finding asks for it (see locate).
type decoder struct {
	file  string
	diags []Diagnostic
	// nodes counts visited nodes, aliases expanded, so an alias bomb is
	// refused instead of expanded.
	nodes int
}

const (
	maxNodes       = 2_000_000
	maxDiagnostics = 50
)

var errBudget = fmt.Errorf("budget")

func posOf(n *yaml.Node) Pos { return Pos{Line: n.Line, Column: n.Column} }

func (d *decoder) errorf(n *yaml.Node, path, fix, format string, args ...any) {
	if len(d.diags) >= maxDiagnostics {
		return
	}
	var p Pos
	if n != nil {
		p = posOf(n)
	}
	for i, a := range args {
		if s, ok := a.(string); ok {
			args[i] = clipQuoted(s)
		}
	}
	d.diags = append(d.diags, Diagnostic{File: d.file, Pos: p, Path: path, Message: fmt.Sprintf(format, args...), Fix: fix})
}

// clipQuoted shortens a value quoted into a message: a hostile file may hold
// a scalar of megabytes, and a diagnostic stays one readable line.
func clipQuoted(s string) string {
	const keep = 80
	if len(s) <= 2*keep {
		return s
	}
	n := 0
	for i := range s {
		if n == keep {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// resolve follows aliases and counts the node against the budget.
func (d *decoder) resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	d.nodes++
	if d.nodes > maxNodes {
		panic(errBudget)
	}
	return n
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "nothing (null)"
		}
		return fmt.Sprintf("%q", n.Value)
	}
	return "an unexpected node"
}

// object decodes a mapping whose keys must come from fields. It returns the
// value nodes by key; unknown and duplicate keys are reported.
func (d *decoder) object(n *yaml.Node, path string, fields ...string) map[string]*yaml.Node {
	n = d.resolve(n)
	if n.Kind != yaml.MappingNode {
		d.errorf(n, path, "", "%s must be a mapping with keys %s; got %s", label(path), strings.Join(fields, ", "), kindName(n))
		return nil
	}
	out := make(map[string]*yaml.Node, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := d.resolve(n.Content[i]), n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			d.errorf(k, path, "", "keys in %s must be plain names", label(path))
			continue
		}
		if k.Value == "<<" {
			d.errorf(k, path, "write the keys out; merge keys (<<) are not supported", "merge key in %s", label(path))
			continue
		}
		if !contains(fields, k.Value) {
			if len(d.diags) >= maxDiagnostics {
				continue // the suggestion would be dropped anyway
			}
			fix := ""
			if s := didYouMean(k.Value, fields); s != "" {
				fix = fmt.Sprintf("did you mean %q?", s)
			} else {
				fix = "valid keys: " + strings.Join(fields, ", ")
			}
			d.errorf(k, join(path, k.Value), fix, "unknown key %q in %s", k.Value, label(path))
			continue
		}
		if _, dup := out[k.Value]; dup {
			d.errorf(k, join(path, k.Value), "remove one of them", "duplicate key %q in %s", k.Value, label(path))
			continue
		}
		out[k.Value] = v
	}
	return out
}

func label(path string) string {
	if path == "" {
		return "the top level"
	}
	return path
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (d *decoder) scalar(n *yaml.Node, path, want string) (*yaml.Node, bool) {
	n = d.resolve(n)
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		d.errorf(n, path, "", "%s must be %s; got %s", path, want, kindName(n))
		return n, false
	}
	return n, true
}

func (d *decoder) str(n *yaml.Node, path string) string {
	n, ok := d.scalar(n, path, "a string")
	if !ok {
		return ""
	}
	if n.Tag != "!!str" && n.Tag != "" {
		// Numbers and booleans are fine as text, but say so for e.g. "yes".
		if n.Tag == "!!bool" {
			d.errorf(n, path, fmt.Sprintf("quote it: \"%s\"", n.Value), "%s must be a string; %s reads as a boolean", path, n.Value)
			return ""
		}
	}
	return n.Value
}

// text is a one-line prose value of at most max characters.
func (d *decoder) text(n *yaml.Node, path string, max int) string {
	s := d.str(n, path)
	if err := validText(s, max); err != nil {
		d.errorf(d.resolve(n), path, "", "%s: %v", path, err)
		return ""
	}
	return s
}

func (d *decoder) enum(n *yaml.Node, path string, allowed ...string) string {
	n = d.resolve(n)
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		d.scalar(n, path, "one of "+strings.Join(allowed, ", ")) // reports it
		return ""
	}
	v := n.Value
	if !contains(allowed, v) {
		fix := "use one of " + strings.Join(allowed, ", ")
		if s := didYouMean(v, allowed); s != "" {
			fix = fmt.Sprintf("did you mean %q? (one of %s)", s, strings.Join(allowed, ", "))
		}
		d.errorf(n, path, fix, "%s: %q is not a valid value", path, v)
		return ""
	}
	return v
}

func (d *decoder) integer(n *yaml.Node, path string, lo, hi int) int {
	n, ok := d.scalar(n, path, "a whole number")
	if !ok {
		return 0
	}
	v, err := strconv.Atoi(n.Value)
	if err != nil || n.Tag != "!!int" {
		d.errorf(n, path, fmt.Sprintf("write a number from %d to %d", lo, hi), "%s must be a whole number; got %q", path, n.Value)
		return 0
	}
	if v < lo || v > hi {
		d.errorf(n, path, fmt.Sprintf("use a number from %d to %d", lo, hi), "%s is %d, out of range", path, v)
		return 0
	}
	return v
}

func (d *decoder) number(n *yaml.Node, path string, lo, hi float64) float64 {
	n, ok := d.scalar(n, path, "a number")
	if !ok {
		return 0
	}
	v, err := strconv.ParseFloat(n.Value, 64)
	if err != nil || (n.Tag != "!!int" && n.Tag != "!!float") || math.IsNaN(v) || math.IsInf(v, 0) {
		d.errorf(n, path, fmt.Sprintf("write a number from %g to %g", lo, hi), "%s must be a number; got %q", path, n.Value)
		return 0
	}
	if v < lo || v > hi {
		d.errorf(n, path, fmt.Sprintf("use a number from %g to %g", lo, hi), "%s is %g, out of range", path, v)
		return 0
	}
	return v
}

func (d *decoder) boolean(n *yaml.Node, path string) bool {
	n, ok := d.scalar(n, path, "true or false")
	if !ok {
		return false
	}
	switch n.Value {
	case "true", "True", "TRUE":
		return true
	case "false", "False", "FALSE":
		return false
	}
	d.errorf(n, path, "write true or false", "%s must be true or false; got %q", path, n.Value)
	return false
}

// onOff accepts on/off and true/false: YAML 1.1 users write both.
func (d *decoder) onOff(n *yaml.Node, path string) string {
	n, ok := d.scalar(n, path, "on or off")
	if !ok {
		return ""
	}
	switch strings.ToLower(n.Value) {
	case "on", "true", "yes":
		return "on"
	case "off", "false", "no":
		return "off"
	}
	d.errorf(n, path, "write on or off", "%s must be on or off; got %q", path, n.Value)
	return ""
}

func (d *decoder) duration(n *yaml.Node, path string) Duration {
	n, ok := d.scalar(n, path, "a duration like 30s, 24h or 7d")
	if !ok {
		return Duration{}
	}
	v, err := ParseDuration(n.Value)
	if err != nil {
		fix := "durations look like 250ms, 30s, 24h, 7d or 1h30m"
		if v := strings.TrimSpace(n.Value); isAllDigits(v) {
			fix = fmt.Sprintf("add a unit: %ss, %sh or %sd", v, v, v)
			// A bare 86400 is most often seconds: say what that is in the
			// unit people write, so the fix can be pasted as it stands.
			if whole := secondsAsUnit(v); whole != "" {
				fix = fmt.Sprintf("if %s is seconds, write %s (= %ss); otherwise add its unit: %sm, %sh or %sd", v, whole, v, v, v, v)
			}
		}
		d.errorf(n, path, fix, "%s: %v", path, err)
		return Duration{}
	}
	if v <= 0 {
		d.errorf(n, path, "use a positive duration", "%s must be longer than zero", path)
		return Duration{}
	}
	return Duration{D: v, Text: strings.TrimSpace(n.Value)}
}

// list decodes a sequence, calling each for every item with its path. A
// single scalar where a list is expected is reported, not coerced.
func (d *decoder) list(n *yaml.Node, path string, max int, each func(item *yaml.Node, path string)) {
	n = d.resolve(n)
	if n.Kind != yaml.SequenceNode {
		d.errorf(n, path, "write a list: [a, b] or one '- item' per line", "%s must be a list; got %s", path, kindName(n))
		return
	}
	if len(n.Content) > max {
		d.errorf(n, path, "", "%s has %d items; at most %d are allowed", path, len(n.Content), max)
		return
	}
	for i, item := range n.Content {
		each(item, path+"["+strconv.Itoa(i)+"]")
	}
}

func (d *decoder) stringList(n *yaml.Node, path string, max int, validate func(string) error) []string {
	var out []string
	d.list(n, path, max, func(item *yaml.Node, p string) {
		s := d.str(item, p)
		if s == "" {
			return
		}
		if validate != nil {
			if err := validate(s); err != nil {
				d.errorf(d.resolve(item), p, "", "%s: %v", p, err)
				return
			}
		}
		if contains(out, s) { // lists are short (at most a few hundred)
			d.errorf(d.resolve(item), p, "remove the repeated entry", "%s: %q is listed twice", p, s)
			return
		}
		out = append(out, s)
	})
	return out
}

func enumValidator(allowed ...string) func(string) error {
	return func(s string) error {
		if contains(allowed, s) {
			return nil
		}
		if m := didYouMean(s, allowed); m != "" {
			return fmt.Errorf("%q is not valid; did you mean %q? (one of %s)", s, m, strings.Join(allowed, ", "))
		}
		return fmt.Errorf("%q is not valid; use one of %s", s, strings.Join(allowed, ", "))
	}
}

func sortDiagnostics(ds []Diagnostic) {
	sort.SliceStable(ds, func(i, j int) bool {
		if ds[i].Pos.Line != ds[j].Pos.Line {
			return ds[i].Pos.Line < ds[j].Pos.Line
		}
		return ds[i].Pos.Column < ds[j].Pos.Column
	})
}

// secondsAsUnit writes a count of seconds in the largest unit that divides
// it exactly (86400 -> "24h" when that reads better than a day count, 120
// -> "2m"), or "" when it is under a minute or no larger unit divides it.
func secondsAsUnit(digits string) string {
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || n < 60 {
		return ""
	}
	switch {
	case n%86400 == 0 && n/86400 > 1:
		return strconv.FormatInt(n/86400, 10) + "d"
	case n%3600 == 0:
		return strconv.FormatInt(n/3600, 10) + "h"
	case n%60 == 0:
		return strconv.FormatInt(n/60, 10) + "m"
	}
	return ""
}
