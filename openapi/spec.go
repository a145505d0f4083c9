package openapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"go.yaml.in/yaml/v3"
)

// MaxSpecSize bounds the spec file. The largest public specs (Stripe's
// current spec3, GitHub's full description) are around 10 MB.
const MaxSpecSize = 64 << 20

// Format is the syntax of a spec file.
type Format int

const (
	YAML Format = iota + 1
	JSON
)

func (f Format) String() string {
	if f == JSON {
		return "json"
	}
	return "yaml"
}

// LoadOptions controls how much Load checks.
type LoadOptions struct {
	// AllowExternalRefs lets $refs to other files or URLs be followed.
	// Off by default: a spec that pulls in remote content is refused, so a
	// run never touches the network or files the user did not name.
	AllowExternalRefs bool
	// SkipValidation loads and resolves the spec without kin-openapi's full
	// structural validation (drift only needs the operations).
	SkipValidation bool
}

// Spec is a loaded OpenAPI document: its bytes, a position-keeping node tree
// and kin-openapi's model. Nothing here is ever written back to Path.
type Spec struct {
	Path   string
	Data   []byte
	Format Format
	// Root is the top-level mapping node.
	Root *yaml.Node
	// Doc is kin-openapi's resolved model.
	Doc *openapi3.T
	// Version is the spec's openapi field, e.g. "3.1.0".
	Version string
	// CRLF is true when the file's lines end in \r\n.
	CRLF bool
}

// LoadError is a spec that could not be read, parsed or validated.
type LoadError struct {
	File    string
	Line    int
	Column  int
	Message string
	Fix     string
}

func (e *LoadError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Column)
	}
	b.WriteString(": ")
	b.WriteString(e.Message)
	if e.Fix != "" {
		b.WriteString(" (fix: ")
		b.WriteString(e.Fix)
		b.WriteString(")")
	}
	return b.String()
}

// Load reads, parses and validates the spec at path.
func Load(path string, opts LoadOptions) (*Spec, error) {
	f, err := os.Open(path)
	if err != nil {
		msg := err.Error()
		if errors.Is(err, os.ErrNotExist) {
			msg = "no such file"
		}
		return nil, &LoadError{File: path, Message: msg, Fix: "pass the path of the OpenAPI spec"}
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, &LoadError{File: path, Message: "is a folder, not an OpenAPI spec"}
	} else if err == nil && st.Mode().IsRegular() && st.Size() > MaxSpecSize {
		// Refused before reading: reading 64 MiB of a 200 MB file first
		// took 180 MB of memory (hostile-input tests).
		return nil, &LoadError{File: path, Message: fmt.Sprintf("file is larger than %d MiB", MaxSpecSize>>20)}
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxSpecSize+1))
	if err != nil {
		return nil, &LoadError{File: path, Message: err.Error()}
	}
	return Parse(path, data, opts)
}

// Parse is Load on bytes already read; path names the file in messages and
// anchors relative external $refs.
func Parse(path string, data []byte, opts LoadOptions) (*Spec, error) {
	if len(data) > MaxSpecSize {
		return nil, &LoadError{File: path, Message: fmt.Sprintf("file is larger than %d MiB", MaxSpecSize>>20)}
	}
	if i := bytes.IndexByte(data, 0); i >= 0 {
		l, c := offsetLineCol(data, i)
		return nil, &LoadError{File: path, Line: l, Column: c, Message: "file contains a NUL byte: it is binary, not an OpenAPI spec"}
	}
	s := &Spec{Path: path, Data: data, Format: YAML, CRLF: bytes.Contains(data, []byte("\r\n"))}
	if t := bytes.TrimLeft(data, " \t\r\n\xef\xbb\xbf"); len(t) > 0 && t[0] == '{' {
		s.Format = JSON
	}
	// Before the parse: the tree costs about 210 bytes a node (prescan.go).
	if err := prescanSpec(path, data); err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, yamlError(path, err)
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, &LoadError{File: path, Line: 1, Column: 1, Message: "not an OpenAPI document: the top level is not a mapping", Fix: "pass an OpenAPI 3.0 or 3.1 spec"}
	}
	s.Root = doc.Content[0]
	v := mapGet(s.Root, "openapi")
	if v == nil {
		msg := "no openapi: field; this is not an OpenAPI 3 document"
		if mapGet(s.Root, "swagger") != nil {
			msg = "this is a Swagger 2.0 document; retryspec reads OpenAPI 3.0 and 3.1"
		}
		return nil, &LoadError{File: path, Line: 1, Column: 1, Message: msg, Fix: "convert it to OpenAPI 3 (e.g. with swagger2openapi) first"}
	}
	s.Version = v.Value
	if !strings.HasPrefix(s.Version, "3.0") && !strings.HasPrefix(s.Version, "3.1") {
		return nil, &LoadError{File: path, Line: v.Line, Column: v.Column, Message: fmt.Sprintf("openapi %q: retryspec reads OpenAPI 3.0 and 3.1", s.Version)}
	}
	if !opts.AllowExternalRefs {
		if ref := firstExternalRef(s.Root); ref != nil {
			return nil, &LoadError{File: path, Line: ref.Line, Column: ref.Column,
				Message: fmt.Sprintf("external $ref %q is not followed by default", ref.Value),
				Fix:     "bundle the spec into one file (e.g. `redocly bundle`), or pass --allow-external-refs to follow it"}
		}
	}

	if err := checkSpecSize(s); err != nil {
		return nil, err
	}
	if err := checkRefChains(s); err != nil {
		return nil, err
	}

	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = opts.AllowExternalRefs
	var (
		d   *openapi3.T
		err error
	)
	if opts.AllowExternalRefs {
		d, err = loader.LoadFromDataWithPath(data, &url.URL{Path: path})
	} else {
		d, err = loadResolved(loader, s)
	}
	if err != nil {
		return nil, s.kinError(err, "the spec does not load")
	}
	if !opts.SkipValidation {
		if err := validate(d); err != nil {
			return nil, s.kinError(err, "the spec is not valid OpenAPI")
		}
	}
	s.Doc = d
	return s, nil
}

// validationOptions is kin-openapi's structural validation without the
// checks that public specs routinely fail and that do not concern the
// structure retryspec adds to: examples that disagree with their schema
// (GitHub's, Twilio's and Adyen's specs each have some) and regex syntax.
func validationOptions() []openapi3.ValidationOption {
	return []openapi3.ValidationOption{
		openapi3.DisableExamplesValidation(),
		openapi3.DisableSchemaPatternValidation(),
		openapi3.DisableSchemaDefaultsValidation(),
	}
}

// loadResolved decodes the document into kin-openapi's model from JSON
// written from the parsed tree, and resolves its $refs. The paths and the
// components, nearly all of a large spec, are decoded side by side, and
// apart from the rest: kin-openapi's T.UnmarshalJSON decodes its input a
// second time into a generic map to find extensions, which on the whole
// document is a third of the load time.
func loadResolved(loader *openapi3.Loader, s *Spec) (*openapi3.T, error) {
	rest := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	var pathsNode, componentsNode *yaml.Node
	for i := 0; i+1 < len(s.Root.Content); i += 2 {
		switch k, v := s.Root.Content[i], s.Root.Content[i+1]; k.Value {
		case "paths":
			pathsNode = v
		case "components":
			componentsNode = v
		default:
			rest.Content = append(rest.Content, k, v)
		}
	}
	d := &openapi3.T{}
	var (
		wg                 sync.WaitGroup
		paths              *openapi3.Paths
		components         *openapi3.Components
		pathsErr, compsErr error
	)
	if pathsNode != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			paths = &openapi3.Paths{}
			pathsErr = decodeNode(pathsNode, paths)
		}()
	}
	if componentsNode != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			components = &openapi3.Components{}
			compsErr = decodeNode(componentsNode, components)
		}()
	}
	restErr := decodeNode(rest, d)
	wg.Wait()
	for _, err := range []error{restErr, pathsErr, compsErr} {
		if err != nil {
			return nil, err
		}
	}
	d.Paths, d.Components = paths, components
	if err := loader.ResolveRefsIn(d, nil); err != nil {
		return nil, err
	}
	return d, nil
}

// decodeNode decodes a YAML subtree into a kin-openapi type through JSON.
func decodeNode(n *yaml.Node, v json.Unmarshaler) error {
	data, err := nodeJSON(n)
	if err != nil {
		return err
	}
	return v.UnmarshalJSON(data)
}

var kinLineCol = regexp.MustCompile(`line (\d+)(?:,? column (\d+))?`)

// kinError turns a kin-openapi error into a LoadError, keeping a line and
// column when the message carries one, else pointing at the path the
// message names.
func (s *Spec) kinError(err error, what string) *LoadError {
	msg := err.Error()
	le := &LoadError{File: s.Path, Message: what + ": " + msg}
	if m := kinLineCol.FindStringSubmatch(msg); m != nil {
		le.Line, _ = strconv.Atoi(m[1])
		le.Column = 1
		if m[2] != "" {
			le.Column, _ = strconv.Atoi(m[2])
		}
		return le
	}
	// kin-openapi names the failing operation ("invalid path /x: invalid
	// operation POST: ..."): point at it.
	for _, re := range kinOperation {
		if m := re.FindStringSubmatch(msg); m != nil {
			path, method := m[1], m[2]
			if re == kinOperation[1] {
				path, method = m[2], m[1]
			}
			if op := s.operationNode(path, method); op != nil {
				le.Line, le.Column = op.key.Line, op.key.Column
				return le
			}
		}
	}
	if m := kinComponent.FindStringSubmatch(msg); m != nil {
		if n := mapKey(mapGet(mapGet(s.Root, "components"), m[1]+"s"), m[2]); n != nil {
			le.Line, le.Column = n.Line, n.Column
			return le
		}
	}
	le.Line, le.Column = 1, 1
	return le
}

var kinComponent = regexp.MustCompile(`invalid components: ([a-zA-Z]+?) "([^"]+)"`)

var kinOperation = []*regexp.Regexp{
	regexp.MustCompile(`invalid path ([^:]+): invalid operation ([A-Z]+)`),
	regexp.MustCompile(`operation ([A-Z]+) (/\S*)`),
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

func yamlError(path string, err error) *LoadError {
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		l, _ := strconv.Atoi(m[1])
		return &LoadError{File: path, Line: l, Column: 1, Message: "not valid YAML or JSON: " + m[2]}
	}
	return &LoadError{File: path, Line: 1, Column: 1, Message: "not valid YAML or JSON: " + strings.TrimPrefix(msg, "yaml: ")}
}

// firstExternalRef finds the first $ref that leaves the document. Example
// values, defaults and enums are literal data, not references (GitHub's
// SCIM examples carry "$ref" URLs), so they are not searched; kin-openapi
// refuses any external reference this misses.
func firstExternalRef(n *yaml.Node) *yaml.Node {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Value == "$ref" && v.Kind == yaml.ScalarNode && !strings.HasPrefix(v.Value, "#") {
				return v
			}
			switch k.Value {
			case "example", "value", "default", "enum", "const":
				continue
			}
			if r := firstExternalRef(v); r != nil {
				return r
			}
		}
	case yaml.SequenceNode, yaml.DocumentNode:
		for _, c := range n.Content {
			if r := firstExternalRef(c); r != nil {
				return r
			}
		}
	}
	return nil
}

// mapGet returns the value under key in a mapping node, or nil.
func mapGet(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// mapKey returns the key node of key in a mapping node, or nil.
func mapKey(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i]
		}
	}
	return nil
}

func offsetLineCol(data []byte, off int) (line, col int) {
	line = 1 + bytes.Count(data[:off], []byte("\n"))
	start := bytes.LastIndexByte(data[:off], '\n') + 1
	return line, 1 + len([]rune(string(data[start:off])))
}
