package site

import (
	"bytes"
	"context"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// assetRef finds the style sheets and scripts a page loads up front.
var assetRef = regexp.MustCompile(`<(?:link rel="stylesheet" href|script src)="([^"]+)"`)

// TestPageWeight: no page of an example site loads more than 200 KB of
// HTML, CSS and JavaScript before images (the search index loads only when
// the search box is used), and the search index adds at most 20% to the
// site's size.
func TestPageWeight(t *testing.T) {
	for name, contract := range examples(t) {
		t.Run(name, func(t *testing.T) {
			res, err := Build(context.Background(), Options{Contract: contract, Out: filepath.Join(t.TempDir(), "out")})
			if err != nil {
				t.Fatal(err)
			}
			files := map[string][]byte{}
			total := 0
			for _, f := range res.Files {
				files[f.Path] = f.Data
				total += len(f.Data)
			}
			index := len(files["assets/search-index.js"])
			if index == 0 {
				t.Fatal("no search index")
			}
			if rest := total - index; index*5 > rest {
				t.Errorf("the search index is %d bytes, %.0f%% of the other %d bytes of the site; want at most 20%%", index, 100*float64(index)/float64(rest), rest)
			}
			heaviest, heaviestPage := 0, ""
			defer func() {
				t.Logf("search index %d bytes (%.1f%% of the rest of the site); heaviest page %s, %d bytes with its CSS and JS", index, 100*float64(index)/float64(total-index), heaviestPage, heaviest)
			}()
			for p, b := range files {
				if !strings.HasSuffix(p, ".html") {
					continue
				}
				weight := len(b)
				for _, m := range assetRef.FindAllSubmatch(b, -1) {
					ref := path.Join(path.Dir(p), string(m[1]))
					a, ok := files[ref]
					if !ok {
						t.Errorf("%s loads %s, which the build did not write", p, m[1])
					}
					weight += len(a)
				}
				if weight > heaviest {
					heaviest, heaviestPage = weight, p
				}
				if weight > 200_000 {
					t.Errorf("%s: %d bytes of HTML, CSS and JavaScript; want at most 200 KB", p, weight)
				}
				if bytes.Contains(b, []byte("search-index.js")) {
					t.Errorf("%s loads the search index up front", p)
				}
				if !bytes.Contains(b, []byte(`<div class="search" data-search data-root="`)) || !regexp.MustCompile(`data-search data-root="[^"]*" hidden>`).Match(b) {
					t.Errorf("%s: the search box is not hidden until its script runs", p)
				}
			}
		})
	}
}
