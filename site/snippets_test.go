package site

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/render"
	"github.com/retryspec/retryspec/snippets"
)

// TestRetryingPageEmbedsTestedSnippets reads the Retrying page of each
// example back and checks that its code blocks are, in order and byte for
// byte, what snippets.Render returns: the code `retryspec snippets test`
// runs. Each language's library note comes first, and the HTML site shows
// each language as a tab.
func TestRetryingPageEmbedsTestedSnippets(t *testing.T) {
	for name, path := range examples(t) {
		t.Run(name, func(t *testing.T) {
			c, err := contract.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			langs := snippets.LanguagesFor(c)
			if len(langs) == 0 {
				t.Fatal("no snippet languages")
			}
			out := filepath.Join(t.TempDir(), "out")
			res, err := Build(context.Background(), Options{Contract: path, Out: out, git: noHistory{}})
			if err != nil {
				t.Fatal(err)
			}
			files := map[string][]byte{}
			for _, f := range res.Files {
				files[f.Path] = f.Data
			}
			md := files[MarkdownDir+"/retrying.md"]
			if _, err := snippets.Render(c, langs[0].Name); err != nil {
				// The snippets refuse this contract (a GraphQL one, until
				// they send mutations): the page says why, in place of code.
				if want := "No code is shown for this contract: " + render.EscapeMarkdown(err.Error()); !bytes.Contains(md, []byte(want)) {
					t.Errorf("the snippets refuse the contract (%v), but the Retrying page lacks %q", err, want)
				}
				return
			}
			var blocks [][]byte
			var tags []string
			doc := goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser().Parse(text.NewReader(md))
			_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
				if fc, ok := n.(*ast.FencedCodeBlock); ok && entering {
					var b bytes.Buffer
					for i := 0; i < fc.Lines().Len(); i++ {
						s := fc.Lines().At(i)
						b.Write(s.Value(md))
					}
					blocks = append(blocks, b.Bytes())
					tags = append(tags, string(fc.Language(md)))
				}
				return ast.WalkContinue, nil
			})
			// The page opens with each language's short form; the section
			// "Retry code for your language" then gives, per language, the
			// short form and the full program.
			n := len(langs)
			if len(blocks) != 3*n {
				t.Fatalf("%d code blocks on the Retrying page, want three per language (%d)", len(blocks), 3*n)
			}
			opening, opTags := blocks[:n], tags[:n]
			blocks, tags = blocks[n:], tags[n:]
			html := string(files["retrying.html"])
			for i, l := range langs {
				want, err := snippets.Render(c, l.Name)
				if err != nil {
					t.Fatal(err)
				}
				short, err := snippets.Short(c, l.Name)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(opening[i], short) || opTags[i] != render.FenceTag(l.Name) {
					t.Errorf("%s: opening code block %d is not the short form", l.Name, i)
				}
				if !bytes.Equal(blocks[2*i], short) {
					t.Errorf("%s: code block %d is not the short form", l.Name, 2*i)
				}
				if n := bytes.Count(short, []byte("\n")); n < 5 || n > 15 {
					t.Errorf("%s: the short form has %d lines, want 5 to 15", l.Name, n)
				}
				if !bytes.Equal(blocks[2*i+1], want) {
					t.Errorf("%s: code block %d is not the rendered snippet (%d bytes, want %d)", l.Name, 2*i+1, len(blocks[2*i+1]), len(want))
				}
				if tags[2*i] != render.FenceTag(l.Name) || tags[2*i+1] != render.FenceTag(l.Name) {
					t.Errorf("%s: fence tags %q, want %q", l.Name, tags[2*i:2*i+2], render.FenceTag(l.Name))
				}
				note := strings.Join(strings.Fields(l.Library), " ")
				if !strings.Contains(string(md), "### "+l.Title+"\n\n") || !strings.Contains(string(md), note+"\n\n```") {
					t.Errorf("%s: the library note does not come before the code", l.Name)
				}
				if !strings.Contains(html, `<section class="tab-panel" id="tab-`+render.Slug(l.Name)+`"`) {
					t.Errorf("%s: no tab panel on the HTML page", l.Name)
				}
			}
		})
	}
}
