package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// srcFile is one Markdown file of the shared corpora.
type srcFile struct {
	Rel  string // path under the corpus folder
	Size int64
}

// markdownFiles lists the Markdown files under root, sorted, so every
// replication of the same corpus is identical.
func markdownFiles(root string) ([]srcFile, error) {
	var files []srcFile
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !isMarkdown(p) {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		files = append(files, srcFile{Rel: rel, Size: info.Size()})
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no Markdown files under %s", root)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Rel < files[j].Rel })
	return files, nil
}

func isMarkdown(p string) bool {
	switch strings.ToLower(filepath.Ext(p)) {
	case ".md", ".mdx", ".markdown":
		return true
	}
	return false
}

// Claim is a sentence planted into the corpus that both copy linters must
// flag. The phrasings are the canonical ones from the copy issue: a
// comparison where one tool misses them is void.
type Claim struct {
	Rule string // the copy rule that should fire
	Text string
}

var plantedClaims = []Claim{
	{"copy/exactly-once", "Our webhooks come with guaranteed exactly-once delivery, powered by idempotency keys."},
	{"copy/absolute-guarantee", "Send the same payment twice and you will never be charged twice."},
	{"copy/standard-claim", "Every write accepts the Idempotency-Key standard header."},
	{"copy/method-idempotency", "PUT and DELETE are idempotent per the HTTP spec, so retry them freely."},
	{"copy/retry-any-error", "When a call fails, retry on any error every 100ms until it succeeds."},
}

// Plant records where a claim was planted.
type Plant struct {
	File string // relative to the corpus root
	Line int
	Rule string
}

// Corpus is a replicated, planted Markdown corpus on disk.
type Corpus struct {
	Root   string
	Bytes  int64
	Files  int
	Plants []Plant
	// Source identifies what it was made from, so a rerun reuses it.
	Source string
}

// plantEvery is how many files apart the plants are (about one per
// 85 kB of the shared corpora, so even a 0.2 MB corpus holds a few).
const plantEvery = 20

// Replicate copies the Markdown files of src into dst as replicas
// (r000/, r001/, ...) of the whole tree until target bytes are reached,
// putting a claim paragraph at the top of every plantEvery-th file that can
// take one safely. An existing corpus with the same manifest is reused.
func Replicate(src, dst string, target int64) (*Corpus, error) {
	files, err := markdownFiles(src)
	if err != nil {
		return nil, err
	}
	var srcBytes int64
	for _, f := range files {
		srcBytes += f.Size
	}
	source := fmt.Sprintf("%s files=%d bytes=%d target=%d plantEvery=%d claims=%d top", src, len(files), srcBytes, target, plantEvery, len(plantedClaims))
	manifest := dst + ".json"
	if c, err := readManifest(manifest); err == nil && c.Source == source {
		if _, err := os.Stat(c.Root); err == nil {
			return c, markRepoRoot(c.Root)
		}
	}
	if err := os.RemoveAll(dst); err != nil {
		return nil, err
	}
	c := &Corpus{Root: dst, Source: source}
	n := 0
	for r := 0; c.Bytes < target; r++ {
		for _, f := range files {
			if c.Bytes >= target {
				break
			}
			data, err := os.ReadFile(filepath.Join(src, f.Rel))
			if err != nil {
				return nil, err
			}
			rel := filepath.Join(fmt.Sprintf("r%03d", r), f.Rel)
			// Every claim at least once, early, so that even the small
			// corpus the Vale pair may run on holds each phrasing.
			early := len(c.Plants) < len(plantedClaims)
			if (early || n%plantEvery == 0) && plantable(data) {
				claim := plantedClaims[len(c.Plants)%len(plantedClaims)]
				var line int
				data, line = plant(data, claim.Text)
				c.Plants = append(c.Plants, Plant{File: rel, Line: line, Rule: claim.Rule})
			}
			n++
			p := filepath.Join(dst, rel)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return nil, err
			}
			if err := os.WriteFile(p, data, 0o644); err != nil {
				return nil, err
			}
			c.Bytes += int64(len(data))
			c.Files++
		}
	}
	if err := markRepoRoot(dst); err != nil {
		return nil, err
	}
	buf, err := json.MarshalIndent(c, "", " ")
	if err != nil {
		return nil, err
	}
	return c, os.WriteFile(manifest, buf, 0o644)
}

// markRepoRoot makes the corpus a git repository of its own, as a docs
// repository would be. Without it the corpus would sit inside this
// repository's ignored bench/.cache, and a linter that honours .gitignore
// (retryspec copy does, as git does) would rightly skip every file.
func markRepoRoot(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
		return nil
	}
	if err := exec.Command("git", "init", "-q", dir).Run(); err == nil {
		return nil
	}
	return os.Mkdir(filepath.Join(dir, ".git"), 0o755)
}

func readManifest(p string) (*Corpus, error) {
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	var c Corpus
	return &c, json.Unmarshal(data, &c)
}

// Remove deletes the corpus and its manifest.
func (c *Corpus) Remove() error {
	if err := os.RemoveAll(c.Root); err != nil {
		return err
	}
	return os.Remove(c.Root + ".json")
}

// plant puts claim as a paragraph of its own at the top of the file, after
// any front matter, and returns the new text and the claim's 1-based line.
// At the top, nothing before the claim can change how a reader parses it:
// planted at the end, one claim followed a "````" code span that Vale's
// Markdown reader takes for an unclosed fence, and the comparison was void
// over a parser quirk, not a rule.
func plant(data []byte, claim string) ([]byte, int) {
	at := frontMatterEnd(data)
	out := make([]byte, 0, len(data)+len(claim)+3)
	out = append(out, data[:at]...)
	line := bytes.Count(data[:at], []byte("\n")) + 1
	if at > 0 {
		out = append(out, '\n')
		line++
	}
	out = append(out, claim...)
	out = append(out, "\n\n"...)
	out = append(out, data[at:]...)
	return out, line
}

// frontMatterEnd returns the offset just past the closing line of the
// file's YAML (---) or TOML (+++) front matter, 0 when it has none, and -1
// when it opens one and never closes it.
func frontMatterEnd(data []byte) int {
	for _, delim := range []string{"---\n", "+++\n"} {
		if !bytes.HasPrefix(data, []byte(delim)) {
			continue
		}
		for off := len(delim); off < len(data); {
			end := bytes.IndexByte(data[off:], '\n')
			if end < 0 {
				end = len(data) - off
			} else {
				end++
			}
			if l := string(data[off : off+end]); strings.TrimRight(l, "\n") == delim[:3] {
				return off + end
			}
			off += end
		}
		return -1
	}
	return 0
}

// plantable tells whether the file can take a claim at its top: it has
// text, plain LF line ends, no NUL, and any front matter it opens is closed.
func plantable(data []byte) bool {
	if len(bytes.TrimSpace(data)) == 0 || bytes.IndexByte(data, '\r') >= 0 || bytes.IndexByte(data, 0) >= 0 {
		return false
	}
	return !bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) && frontMatterEnd(data) >= 0
}

// Found maps a relative file and line to the rules a tool reported there.
type Found map[string]map[int][]string

func (f Found) add(file string, line int, rule string) {
	if f[file] == nil {
		f[file] = map[int][]string{}
	}
	f[file][line] = append(f[file][line], rule)
}

// Verify lists the plants a tool did not report (on their line, any rule).
func Verify(plants []Plant, found Found) []Plant {
	var missed []Plant
	for _, p := range plants {
		if len(found[p.File][p.Line]) == 0 {
			missed = append(missed, p)
		}
	}
	return missed
}

// relTo makes a path a tool printed relative to the corpus root; tools
// print it as given, relative to their working folder, or absolute.
func relTo(root, dir, p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return p
	}
	return rel
}

// retryspecFound reads `retryspec copy --format json` output.
func retryspecFound(data []byte, root, dir string) (Found, int, error) {
	var doc struct {
		Findings []struct {
			Rule string `json:"rule"`
			File string `json:"file"`
			Line int    `json:"line"`
		} `json:"findings"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, 0, fmt.Errorf("reading retryspec JSON: %w", err)
	}
	f := Found{}
	for _, x := range doc.Findings {
		f.add(relTo(root, dir, x.File), x.Line, x.Rule)
	}
	return f, len(doc.Findings), nil
}

// valeFound reads `vale --output JSON` output: alerts keyed by file.
func valeFound(data []byte, root, dir string) (Found, int, error) {
	var doc map[string][]struct {
		Check string `json:"Check"`
		Line  int    `json:"Line"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, 0, fmt.Errorf("reading Vale JSON: %w", err)
	}
	f, n := Found{}, 0
	for file, alerts := range doc {
		for _, a := range alerts {
			f.add(relTo(root, dir, file), a.Line, a.Check)
			n++
		}
	}
	return f, n, nil
}
