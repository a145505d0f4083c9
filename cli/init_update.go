package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/internal/atomicwrite"
	"github.com/retryspec/retryspec/openapi"
)

// runInitUpdate is `init --openapi SPEC --update -c CONTRACT`: the spec's
// state-changing operations that the contract does not classify yet are
// appended to its endpoints, each a proposal marked `# review:` with how
// sure the guess is. The rest of the file is kept byte for byte: the new
// entries are inserted as text after the last entry, never by re-encoding
// the YAML, which would drop comments and reflow the user's formatting.
func runInitUpdate(sys *IO, opts initOptions) error {
	src, err := os.ReadFile(opts.Contract)
	if errors.Is(err, fs.ErrNotExist) {
		return usageErrorf("%s does not exist; --update adds to an existing contract (drop --update to start one)", opts.Contract)
	}
	if err != nil {
		return inputError(err)
	}
	c, err := contract.Parse(opts.Contract, src)
	if err != nil {
		return inputError(err)
	}
	s, err := openapi.Load(opts.OpenAPI, openapi.LoadOptions{})
	if err != nil {
		return inputError(err)
	}
	var eps []contract.StarterEndpoint
	for _, p := range openapi.Unclassified(c, s) {
		if p.Skip != "" {
			fmt.Fprintf(sys.Err, "%s:%d: skipped %s: %s\n", opts.OpenAPI, p.Line, p.Operation, p.Skip)
			continue
		}
		method, path, _ := strings.Cut(p.Operation, " ")
		eps = append(eps, contract.StarterEndpoint{
			Method: method, Path: path, Effect: p.Effect, Key: p.Key, Summary: p.Summary,
			Review: fmt.Sprintf("%s (%s line %d)", p.Reason, filepath.Base(opts.OpenAPI), p.Line),
		})
	}
	if len(eps) == 0 {
		fmt.Fprintf(sys.Err, "%s already classifies every state-changing operation of %s; nothing was written\n", opts.Contract, opts.OpenAPI)
		return nil
	}
	head := fmt.Sprintf("# Added from %s by `retryspec init --update`: each effect and key below is\n"+
		"# a guess from the method and path (its review comment says how sure).\n"+
		"# Check each against its handler, then delete the review comment.\n", filepath.Base(opts.OpenAPI))
	out, err := appendEndpoints(src, eps, head)
	if err != nil {
		return usageErrorf("%s: %v; nothing was written", opts.Contract, err)
	}
	// The edit is text, so prove it: the result must load, with exactly the
	// new entries added. Anything else is refused before the file is touched.
	after, err := contract.Parse(opts.Contract, out)
	if err != nil {
		var le *contract.LoadError
		if errors.As(err, &le) && len(le.Diagnostics) > 0 {
			d := le.Diagnostics[0]
			return usageErrorf("%s: adding the operations would not leave a valid contract (line %d: %s); nothing was written", opts.Contract, d.Pos.Line, d.Message)
		}
		return usageErrorf("%s: adding the operations would not leave a valid contract (%v); nothing was written", opts.Contract, err)
	}
	if len(after.Endpoints) != len(c.Endpoints)+len(eps) {
		return usageErrorf("%s: adding %d operations would leave %d endpoints instead of %d; nothing was written", opts.Contract, len(eps), len(after.Endpoints), len(c.Endpoints)+len(eps))
	}
	perm := fs.FileMode(0o644)
	if fi, err := os.Stat(opts.Contract); err == nil {
		perm = fi.Mode().Perm()
	}
	if err := atomicwrite.File(opts.Contract, out, perm); err != nil {
		return inputError(err)
	}
	fmt.Fprintf(sys.Err, "added %d operations from %s to %s, each marked `# review:`; run `retryspec check -c %s`\n", len(eps), opts.OpenAPI, opts.Contract, opts.Contract)
	return nil
}

// appendEndpoints inserts entries for eps, after head, at the end of src's
// endpoints list, matching the list's indentation and line endings. Lines
// outside the insertion are not changed. A list written in flow style
// ([a, b]) cannot be extended in place and is refused, except an empty [].
func appendEndpoints(src []byte, eps []contract.StarterEndpoint, head string) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, errors.New("the file is not a YAML mapping")
	}
	root := doc.Content[0]
	eol := "\n"
	if bytes.Contains(src, []byte("\r\n")) {
		eol = "\r\n"
	}
	lines := strings.SplitAfter(string(src), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	// step is how far an entry's keys sit right of its dash: 2 in the
	// starter, kept as the file has it (`-   operation:` is 4).
	step := 2
	entries := func(indent string) string {
		text := prefixLines(head, "") + string(contract.StarterEndpoints(eps, ""))
		var b strings.Builder
		for _, l := range strings.SplitAfter(text, "\n") {
			switch {
			case l == "":
			case strings.HasPrefix(l, "- "):
				b.WriteString(indent + "-" + strings.Repeat(" ", step-1) + l[2:])
			case strings.HasPrefix(l, "  "):
				b.WriteString(indent + strings.Repeat(" ", step) + l[2:])
			default:
				b.WriteString(indent + l)
			}
		}
		return strings.ReplaceAll(b.String(), "\n", eol)
	}
	// insert puts text after the first n lines.
	insert := func(n int, text string) []byte {
		var b strings.Builder
		for _, l := range lines[:n] {
			b.WriteString(l)
		}
		if n > 0 && !strings.HasSuffix(lines[n-1], "\n") {
			b.WriteString(eol)
		}
		b.WriteString(text)
		for _, l := range lines[n:] {
			b.WriteString(l)
		}
		return []byte(b.String())
	}
	ki := -1
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "endpoints" {
			ki = i
		}
	}
	if ki < 0 {
		return insert(len(lines), eol+"endpoints:"+eol+entries("  ")), nil
	}
	key, val := root.Content[ki], root.Content[ki+1]
	// end is the line count before the section that follows endpoints: its
	// comments, flush left, belong to it and stay with it.
	end := len(lines)
	if ki+2 < len(root.Content) {
		end = root.Content[ki+2].Line - 1
	}
	end = sectionEnd(lines, end)
	keyIndent := strings.Repeat(" ", key.Column-1)
	switch {
	case val.Kind == yaml.AliasNode:
		return nil, errors.New("endpoints is an alias (*name); write the list out to add to it")
	case val.Kind == yaml.ScalarNode && val.Tag == "!!null":
		return insert(key.Line, entries(keyIndent+"  ")), nil
	case val.Kind == yaml.SequenceNode && val.Style&yaml.FlowStyle == 0:
		if first := val.Content[0]; first.Line == val.Line && first.Column > val.Column {
			step = first.Column - val.Column
		}
		return insert(end, entries(strings.Repeat(" ", val.Column-1))), nil
	case val.Kind == yaml.SequenceNode && len(val.Content) == 0:
		// endpoints: []  -> endpoints:  (the list follows as a block)
		line := []rune(lines[val.Line-1])
		i := val.Column - 1
		if i+1 >= len(line) || line[i] != '[' || line[i+1] != ']' {
			return nil, fmt.Errorf("line %d: write the empty endpoints list as `endpoints: []` or `endpoints:` to add to it", val.Line)
		}
		lines[val.Line-1] = string(line[:i]) + strings.TrimLeft(string(line[i+2:]), " ")
		if strings.TrimSpace(lines[val.Line-1]) == strings.TrimSpace(string(line[:i])) {
			lines[val.Line-1] = strings.TrimRight(string(line[:i]), " ") + eol
		}
		return insert(val.Line, entries(keyIndent+"  ")), nil
	case val.Kind == yaml.SequenceNode:
		return nil, fmt.Errorf("line %d: endpoints is a flow list ([...]); write one `- operation:` entry per line to add to it", val.Line)
	}
	return nil, fmt.Errorf("line %d: endpoints must be a list", val.Line)
}

// sectionEnd backs up from line count n over blank lines and comments that
// start in the first column: they introduce what follows, not the list.
func sectionEnd(lines []string, n int) int {
	for n > 0 {
		l := strings.TrimRight(lines[n-1], "\r\n")
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
			n--
			continue
		}
		break
	}
	return n
}

func prefixLines(text, indent string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(text, "\n") {
		if l != "" {
			b.WriteString(indent + l)
		}
	}
	return b.String()
}
