package openapi

import (
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/retryspec/retryspec/contract"
)

// RequestExample returns the JSON request body example the spec gives for
// the operation (method and path as the contract writes them, matched by
// shape): the media type's example, its first examples entry, or the
// schema's example, following local $refs. ok is false when there is none.
// `verify init --openapi` fills plan bodies from it.
func (s *Spec) RequestExample(method, path string) (body []byte, ok bool) {
	want := shape(method, path)
	for _, op := range s.Operations() {
		if shape(op.Method, op.Path) != want {
			continue
		}
		rb, _ := s.resolveRef(mapGet(op.node, "requestBody"))
		content := mapGet(rb, "content")
		if content == nil || content.Kind != yaml.MappingNode {
			return nil, false
		}
		for i := 0; i+1 < len(content.Content); i += 2 {
			mt := strings.ToLower(content.Content[i].Value)
			if !strings.Contains(mt, "json") {
				continue
			}
			media, _ := s.resolveRef(content.Content[i+1])
			candidates := []*yaml.Node{mapGet(media, "example")}
			if exs := mapGet(media, "examples"); exs != nil && exs.Kind == yaml.MappingNode && len(exs.Content) >= 2 {
				ex, _ := s.resolveRef(exs.Content[1])
				candidates = append(candidates, mapGet(ex, "value"))
			}
			schema, _ := s.resolveRef(mapGet(media, "schema"))
			candidates = append(candidates, mapGet(schema, "example"))
			for _, c := range candidates {
				if c == nil {
					continue
				}
				if b, err := nodeJSON(c); err == nil {
					return b, true
				}
			}
		}
		return nil, false
	}
	return nil, false
}

// ApplyRequestExamples gives each keyed endpoint whose contract names no
// example body the spec's request example for its operation, so the docs
// and snippets show the API's own request: the contract's example wins,
// and an example the contract's limits refuse (see
// contract.ParseExampleBody), or that is not a JSON object while the key
// travels in the body, is left out, for the placeholder. It returns
// how many endpoints it filled.
func ApplyRequestExamples(c *contract.Contract, s *Spec) int {
	n := 0
	for i := range c.Endpoints {
		e := &c.Endpoints[i]
		if !e.Keyed() {
			continue
		}
		if _, stated := e.ExampleBody(); stated {
			continue
		}
		data, ok := s.RequestExample(e.Method, e.Path)
		if !ok {
			continue
		}
		body, err := contract.ParseExampleBody(data)
		if err != nil {
			continue
		}
		if c.Idempotency.InBody() && body.Kind != contract.JSONObject {
			// A key in the body needs an object to be a member of: the
			// snippets would not compile or send broken JSON around it.
			continue
		}
		if e.Example == nil {
			e.Example = &contract.ExampleRequest{}
		}
		e.Example.Body = &body
		n++
	}
	return n
}
