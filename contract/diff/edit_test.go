package diff

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/retryspec/retryspec/contract"
)

// absent, as an edit value, deletes the key or list item.
const absent = "<absent>"

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func parse(t *testing.T, name string, src []byte) *contract.Contract {
	t.Helper()
	c, err := contract.Parse(name, src)
	if err != nil {
		t.Fatalf("parse %s: %v\n%s", name, err, src)
	}
	return c
}

// edit sets the value at a contract path ("retry.statuses", "endpoints[0].key")
// to the YAML value, or deletes it when value is absent.
func edit(t *testing.T, src []byte, path, value string) []byte {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		t.Fatal(err)
	}
	var val *yaml.Node
	if value != absent {
		var v yaml.Node
		if err := yaml.Unmarshal([]byte(value), &v); err != nil {
			t.Fatalf("edit value %q: %v", value, err)
		}
		val = v.Content[0]
	}
	if err := setPath(doc.Content[0], splitPath(path), val); err != nil {
		t.Fatalf("edit %s: %v", path, err)
	}
	out, err := yaml.Marshal(&doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func splitPath(path string) []string {
	var segs []string
	for _, part := range strings.Split(path, ".") {
		for {
			i := strings.IndexByte(part, '[')
			if i < 0 {
				segs = append(segs, part)
				break
			}
			if i > 0 {
				segs = append(segs, part[:i])
			}
			j := strings.IndexByte(part, ']')
			segs = append(segs, part[i:j+1])
			part = part[j+1:]
			if part == "" {
				break
			}
		}
	}
	return segs
}

func setPath(n *yaml.Node, segs []string, val *yaml.Node) error {
	seg, last := segs[0], len(segs) == 1
	if strings.HasPrefix(seg, "[") {
		i, err := strconv.Atoi(seg[1 : len(seg)-1])
		if err != nil || n.Kind != yaml.SequenceNode || i > len(n.Content) {
			return fmt.Errorf("bad index %s", seg)
		}
		if last {
			switch {
			case val == nil && i == len(n.Content):
				// nothing to delete
			case val == nil:
				n.Content = append(n.Content[:i], n.Content[i+1:]...)
			case i == len(n.Content):
				n.Content = append(n.Content, val)
			default:
				n.Content[i] = val
			}
			return nil
		}
		return setPath(n.Content[i], segs[1:], val)
	}
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("%s: not a mapping", seg)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value != seg {
			continue
		}
		if !last {
			return setPath(n.Content[i+1], segs[1:], val)
		}
		if val == nil {
			n.Content = append(n.Content[:i], n.Content[i+2:]...)
		} else {
			n.Content[i+1] = val
		}
		return nil
	}
	if val == nil {
		return nil
	}
	if !last {
		child := &yaml.Node{Kind: yaml.MappingNode}
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: seg}, child)
		return setPath(child, segs[1:], val)
	}
	n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: seg}, val)
	return nil
}
