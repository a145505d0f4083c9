package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPlant(t *testing.T) {
	tests := []struct {
		in, want string
		wantLine int
	}{
		{"# Title\n\nSome text.\n", "CLAIM\n\n# Title\n\nSome text.\n", 1},
		{"# Title\n\nNo newline at end", "CLAIM\n\n# Title\n\nNo newline at end", 1},
		{"---\ntitle: x\n---\n# Title\n", "---\ntitle: x\n---\n\nCLAIM\n\n# Title\n", 5},
		{"+++\ntitle = 'x'\n+++\n", "+++\ntitle = 'x'\n+++\n\nCLAIM\n\n", 5},
		{"Text with ```` a long code span\nand more\n", "CLAIM\n\nText with ```` a long code span\nand more\n", 1},
	}
	for _, tt := range tests {
		out, line := plant([]byte(tt.in), "CLAIM")
		if string(out) != tt.want || line != tt.wantLine {
			t.Errorf("plant(%q) = %q, line %d; want %q, line %d", tt.in, out, line, tt.want, tt.wantLine)
		}
	}
}

func TestPlantable(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want bool
	}{
		{"prose", "# Title\n\nText.\n", true},
		{"open fence at end", "Text\n\n```go\ncode\n", true},
		{"front matter", "---\ntitle: x\n---\nText\n", true},
		{"unclosed front matter", "---\ntitle: x\nText\n", false},
		{"CRLF", "Text\r\n", false},
		{"BOM", "\xef\xbb\xbfText\n", false},
		{"NUL", "Text\x00\n", false},
		{"empty", "  \n", false},
	}
	for _, tt := range tests {
		if got := plantable([]byte(tt.in)); got != tt.want {
			t.Errorf("%s: plantable = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestReplicate(t *testing.T) {
	src := t.TempDir()
	for i, body := range []string{"# A\n\nalpha text\n", "---\nx: B\n", "# C [x], (y)\n\ngamma\n"} {
		name := filepath.Join(src, "sub dir", string(rune('a'+i))+" [1].md")
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(src, "skip.html"), []byte("<p>not markdown</p>"), 0o644)
	dst := filepath.Join(t.TempDir(), "corpus")
	c, err := Replicate(src, dst, 400)
	if err != nil {
		t.Fatal(err)
	}
	if c.Bytes < 400 {
		t.Errorf("corpus has %d bytes, want at least 400", c.Bytes)
	}
	// Three files, one of which cannot take a plant: the first two
	// plantable files of each replica until every phrasing is in.
	rules := map[string]bool{}
	for _, p := range c.Plants {
		rules[p.Rule] = true
	}
	if len(c.Plants) < len(plantedClaims) || len(rules) != len(plantedClaims) {
		t.Fatalf("%d plants over %d phrasings; want every phrasing planted early", len(c.Plants), len(rules))
	}
	if _, err := os.Stat(filepath.Join(dst, ".git")); err != nil {
		t.Errorf("corpus is not a repository root of its own: %v", err)
	}
	var total int64
	filepath.Walk(dst, func(p string, info os.FileInfo, err error) error {
		if info != nil && info.IsDir() && info.Name() == ".git" {
			return filepath.SkipDir
		}
		if err == nil && !info.IsDir() {
			total += info.Size()
			if strings.HasSuffix(p, ".html") {
				t.Errorf("non-Markdown file replicated: %s", p)
			}
		}
		return nil
	})
	if total != c.Bytes {
		t.Errorf("manifest says %d bytes, disk has %d", c.Bytes, total)
	}
	for _, p := range c.Plants {
		data, err := os.ReadFile(filepath.Join(dst, p.File))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(data), "\n")
		if p.Line > len(lines) || !isClaim(lines[p.Line-1], p.Rule) {
			t.Errorf("plant %s:%d (%s) not found at its line", p.File, p.Line, p.Rule)
		}
		if strings.Contains(p.File, "b [1].md") {
			t.Errorf("planted into a file with unclosed front matter: %s", p.File)
		}
	}
	// A second call reuses the corpus instead of rewriting it.
	marker := filepath.Join(dst, "marker")
	os.WriteFile(marker, nil, 0o644)
	if _, err := Replicate(src, dst, 400); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Error("second Replicate rebuilt the corpus instead of reusing it")
	}
	if err := c.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dst); !os.IsNotExist(err) {
		t.Error("Remove left the corpus")
	}
}

func isClaim(line, rule string) bool {
	for _, c := range plantedClaims {
		if c.Rule == rule && c.Text == line {
			return true
		}
	}
	return false
}

func TestVerifyAndReaders(t *testing.T) {
	root, dir := "/c", "/work"
	plants := []Plant{{"r000/a.md", 5, "copy/exactly-once"}, {"r000/b [1].md", 9, "copy/standard-claim"}}
	ours := []byte(`{"findings":[{"rule":"copy/exactly-once","file":"/c/r000/a.md","line":5},{"rule":"copy/x","file":"../c/r000/b [1].md","line":8}],"summary":{}}`)
	found, n, err := retryspecFound(ours, root, dir)
	if err != nil || n != 2 {
		t.Fatalf("retryspecFound: %v, %d", err, n)
	}
	missed := Verify(plants, found)
	if len(missed) != 1 || missed[0].Line != 9 {
		t.Errorf("missed = %v, want the line-9 plant (a finding one line off does not count)", missed)
	}
	vale := []byte(`{"/c/r000/a.md":[{"Check":"Retryspec.ExactlyOnce","Line":5}],"/c/r000/b [1].md":[{"Check":"Retryspec.Standard","Line":9}]}`)
	found, n, err = valeFound(vale, root, dir)
	if err != nil || n != 2 {
		t.Fatalf("valeFound: %v, %d", err, n)
	}
	if missed := Verify(plants, found); len(missed) != 0 {
		t.Errorf("Vale missed %v", missed)
	}
	if _, _, err := valeFound([]byte("not json"), root, dir); err == nil {
		t.Error("valeFound accepted garbage")
	}
}

func TestValeStyles(t *testing.T) {
	// The export folder is itself a style.
	d := filepath.Join(t.TempDir(), "Retryspec")
	os.MkdirAll(d, 0o755)
	os.WriteFile(filepath.Join(d, "ExactlyOnce.yml"), []byte("extends: existence\n"), 0o644)
	sp, styles, err := valeStyles(d)
	if err != nil || sp != filepath.Dir(d) || len(styles) != 1 || styles[0] != "Retryspec" {
		t.Errorf("style folder: %q %v %v", sp, styles, err)
	}
	// The export folder is a StylesPath with a style inside.
	sp, styles, err = valeStyles(filepath.Dir(d))
	if err != nil || sp != filepath.Dir(d) || len(styles) != 1 || styles[0] != "Retryspec" {
		t.Errorf("styles path: %q %v %v", sp, styles, err)
	}
	if _, _, err := valeStyles(t.TempDir()); err == nil {
		t.Error("empty folder accepted as a style")
	}
}
