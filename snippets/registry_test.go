package snippets

import (
	"io/fs"
	"slices"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/contract"
)

// TestLanguageRegistry: contract.LanguageTable is the one list of
// languages. Every language in it has what this package adds (a template,
// its implementation row, its needs and a short form), appears in the
// snippet table under the registry's title and order, and the loader
// accepts it in sdk.languages; nothing here names a language the registry
// lacks. So adding a language is a registry row plus its snippet, the
// steps of snippets/README.md.
func TestLanguageRegistry(t *testing.T) {
	c := loadExample(t)
	var names []string
	for _, reg := range contract.LanguageTable {
		names = append(names, reg.Name)
		impl, ok := implementations[reg.Name]
		if !ok {
			t.Errorf("%s is in contract.LanguageTable but has no row in implementations (languages.go)", reg.Name)
			continue
		}
		if _, err := fs.Stat(templateFS, "templates/"+impl.template); err != nil {
			t.Errorf("%s: template %s: %v", reg.Name, impl.template, err)
		}
		if len(needs[reg.Name]) == 0 {
			t.Errorf("%s has no needs (needs.go): `snippets test` could not say what to install", reg.Name)
		}
		l, ok := LanguageNamed(reg.Name)
		if !ok || l.Title != reg.Title {
			t.Errorf("%s: snippet table has %+v, want the registry's title %q", reg.Name, l, reg.Title)
		}
		if short, err := Short(c, reg.Name); err != nil || len(short) == 0 {
			t.Errorf("%s: no short form (short.go): %v", reg.Name, err)
		}
		if reg.Title == "" || reg.FenceTag == "" {
			t.Errorf("%s: the registry row needs a title and a fence tag", reg.Name)
		}
		src := "retryspec: 1\napi: {name: A, base_url: https://a.example}\nidempotency: {}\nsdk:\n  languages: [" + reg.Name + "]\n"
		if got, err := contract.Parse("retryspec.yaml", []byte(src)); err != nil {
			t.Errorf("%s: the loader rejects it in sdk.languages: %v", reg.Name, err)
		} else if !slices.Equal(got.SDK.Languages, []string{reg.Name}) {
			t.Errorf("%s: sdk.languages read as %v", reg.Name, got.SDK.Languages)
		}
	}
	if got := LanguageNames(); !slices.Equal(got, names) {
		t.Errorf("snippet table lists %v, the registry %v (same languages, same order)", got, names)
	}
	for name := range implementations {
		if !slices.Contains(names, name) {
			t.Errorf("implementations has %s, which contract.LanguageTable lacks", name)
		}
	}
	for name := range needs {
		if !slices.Contains(names, name) {
			t.Errorf("needs has %s, which contract.LanguageTable lacks", name)
		}
	}
	entries, _ := fs.ReadDir(templateFS, "templates")
	for _, e := range entries {
		used := false
		for _, impl := range implementations {
			used = used || impl.template == e.Name()
		}
		if !used && strings.HasSuffix(e.Name(), ".tmpl") {
			t.Errorf("template %s belongs to no language", e.Name())
		}
	}
}
