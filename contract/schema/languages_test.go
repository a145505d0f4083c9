package schema

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/internal/golden"
)

// TestLanguagesFollowTheRegistry: sdk.languages in the schema is
// contract.LanguageTable's names and count, so a language added to the
// registry reaches editors by `go test ./contract/schema -update`, which
// rewrites that part of retryspec.schema.json (and nothing else).
func TestLanguagesFollowTheRegistry(t *testing.T) {
	got, err := withLanguages(string(JSON()), contract.Languages)
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "retryspec.schema.json", []byte(got))
}

// withLanguages returns the schema text with sdk.languages' maxItems and
// item enum set to names, laid out as the file lays them out.
func withLanguages(doc string, names []string) (string, error) {
	start := strings.Index(doc, `"description": "the languages with an SDK`)
	if start < 0 {
		return "", fmt.Errorf("no sdk.languages property in the schema")
	}
	maxAt := start + strings.Index(doc[start:], `"maxItems": `) + len(`"maxItems": `)
	maxEnd := maxAt + strings.IndexByte(doc[maxAt:], ',')
	open := maxEnd + strings.Index(doc[maxEnd:], `"enum": [`) + len(`"enum": [`)
	end := open + strings.IndexByte(doc[open:], ']')
	if maxAt < start+len(`"maxItems": `) || maxEnd < maxAt || open < maxEnd || end < open {
		return "", fmt.Errorf("sdk.languages in the schema is not laid out as maxItems then items.enum")
	}
	// The items' indentation, and the closing bracket's.
	lineStart := strings.LastIndexByte(doc[:open], '\n') + 1
	indent := doc[lineStart:open][:len(doc[lineStart:open])-len(strings.TrimLeft(doc[lineStart:open], " "))]
	var b strings.Builder
	for i, n := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n" + indent + "  " + strconv.Quote(n))
	}
	b.WriteString("\n" + indent)
	return doc[:maxAt] + strconv.Itoa(len(names)) + doc[maxEnd:open] + b.String() + doc[end:], nil
}

// TestWithLanguagesRewrites: the rewrite changes the count and the list,
// and leaves the rest of the document alone.
func TestWithLanguagesRewrites(t *testing.T) {
	doc := string(JSON())
	got, err := withLanguages(doc, []string{"python", "kotlin"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, `"maxItems": 2,`) || !strings.Contains(got, "\"enum\": [\n              \"python\",\n              \"kotlin\"\n            ]") {
		t.Errorf("rewritten sdk.languages:\n%s", got[strings.Index(got, `"the languages with an SDK`):][:400])
	}
	back, _ := withLanguages(got, contract.Languages)
	if back != doc {
		t.Errorf("rewriting back to the registry's list does not give the file again")
	}
}
