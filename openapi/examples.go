package openapi

import (
	"strings"

	"go.yaml.in/yaml/v3"
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
