package openapi

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadErrors(t *testing.T) {
	const info = "info: {title: t, version: '1'}\n"
	tests := []struct {
		name, src string
		opts      LoadOptions
		want      string // substring of the error, with its position
	}{
		{"syntax", "openapi: 3.0.0\npaths: [\n", LoadOptions{}, "spec.yaml:2:1: not valid YAML or JSON"},
		{"swagger", "swagger: '2.0'\n", LoadOptions{}, "Swagger 2.0"},
		{"version", "openapi: 2.5.0\n" + info + "paths: {}\n", LoadOptions{}, "spec.yaml:1:10: openapi \"2.5.0\""},
		{"not a mapping", "- a\n", LoadOptions{}, "top level is not a mapping"},
		{"external ref", "openapi: 3.0.0\n" + info + "paths:\n  /a:\n    $ref: 'other.yaml#/a'\n", LoadOptions{}, "spec.yaml:5:11: external $ref \"other.yaml#/a\" is not followed"},
		{"broken local ref", "openapi: 3.0.0\n" + info + "paths:\n  /a:\n    get:\n      responses:\n        '200':\n          $ref: '#/components/responses/Nope'\n", LoadOptions{}, "does not load"},
		{"invalid inline schema", "openapi: 3.0.0\n" + info + "paths:\n  /a:\n    get:\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema: {type: object, properties: {x: {type: bogus}}}\n", LoadOptions{}, "spec.yaml:5:5: the spec is not valid OpenAPI"},
		{"invalid component schema", "openapi: 3.0.0\n" + info + "paths:\n  /a:\n    get:\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema: {$ref: '#/components/schemas/X'}\ncomponents:\n  schemas:\n    X: {type: bogus}\n", LoadOptions{}, "spec.yaml:14:5: the spec is not valid OpenAPI: invalid components: schema \"X\""},
		{"missing responses description", "openapi: 3.0.0\n" + info + "paths:\n  /a:\n    post:\n      responses:\n        '200': {}\n", LoadOptions{}, "spec.yaml:5:5: the spec is not valid OpenAPI"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("spec.yaml", []byte(tt.src), tt.opts)
			var le *LoadError
			if !errors.As(err, &le) {
				t.Fatalf("want a *LoadError, got %v", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
		})
	}
}

func TestLoadExternalRefsAllowed(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "other.yaml"), []byte("description: from another file\n"), 0o644)
	spec := filepath.Join(dir, "spec.yaml")
	os.WriteFile(spec, []byte("openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      responses:\n        '200':\n          $ref: 'other.yaml'\n"), 0o644)
	if _, err := Load(spec, LoadOptions{}); err == nil {
		t.Fatal("external ref followed without AllowExternalRefs")
	}
	s, err := Load(spec, LoadOptions{AllowExternalRefs: true})
	if err != nil {
		t.Fatal(err)
	}
	if d := s.Doc.Paths.Find("/a").Get.Responses.Value("200").Value.Description; d == nil || *d != "from another file" {
		t.Errorf("external response not resolved: %v", d)
	}
}

// TestValidationRestoresReferences: the speed-up in validate leaves the
// document as it was loaded.
func TestValidationRestoresReferences(t *testing.T) {
	s, err := Load("testdata/small.yaml", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	schema := s.Doc.Paths.Find("/v1/transfers").Post.Responses.Value("201").Value.Content["application/json"].Schema
	if schema.Ref == "" || schema.Value == nil || schema.Value.Properties["id"] == nil {
		t.Fatalf("referenced schema not restored: %+v", schema)
	}
}

func TestAliasBomb(t *testing.T) {
	src := "openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths: {}\nx-a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	prev := "a"
	for i := 0; i < 9; i++ {
		name := string(rune('b' + i))
		src += "x-" + name + ": &" + name + " [*" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + "]\n"
		prev = name
	}
	_, err := Parse("spec.yaml", []byte(src), LoadOptions{})
	if err == nil || !strings.Contains(err.Error(), "nested YAML aliases") {
		t.Fatalf("want the alias expansion refused, got %v", err)
	}
}
