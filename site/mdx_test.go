package site

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/internal/testenv"
)

// mdxScript compiles each Markdown file named on the command line with the
// real @mdx-js/mdx (MDX 3), twice: as MDX, which is what Mintlify and a
// default Docusaurus do, and as CommonMark (format: "md"), which is
// Docusaurus with `format: md`. Front matter and GFM tables are read by
// the remark plugins those platforms use. It prints the failures as JSON.
const mdxScript = `
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
const dir = process.env.RETRYSPEC_MDX_MODULES;
const load = (name, entry) => import(pathToFileURL(dir + "/" + name + "/" + entry).href);
const { compile } = await load("@mdx-js/mdx", "index.js");
const frontmatter = (await load("remark-frontmatter", "index.js")).default;
const gfm = (await load("remark-gfm", "index.js")).default;
const failures = [];
for (const file of process.argv.slice(2)) {
  const src = readFileSync(file, "utf8");
  for (const format of ["mdx", "md"]) {
    try {
      await compile(src, { format, remarkPlugins: [frontmatter, gfm] });
    } catch (e) {
      failures.push({ file, format, message: String(e.message || e), line: e.line || 0, column: e.column || 0 });
    }
  }
}
console.log(JSON.stringify(failures));
`

// mdxModules finds node_modules as .ci/install-site installs it.
func mdxModules(t *testing.T) string {
	t.Helper()
	cache := os.Getenv("RETRYSPEC_CACHE")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache", "retryspec")
	}
	dir := filepath.Join(cache, "site-node", "node_modules")
	for _, pkg := range []string{"@mdx-js/mdx", "remark-frontmatter", "remark-gfm"} {
		if _, err := os.Stat(filepath.Join(dir, pkg, "package.json")); err != nil {
			testenv.Missing(t, pkg+" under "+dir+" (run .ci/install-site)")
		}
	}
	return dir
}

// TestMarkdownCompilesAsMDX: every Markdown page of every example, and of
// the contract whose text carries markup, compiles with @mdx-js/mdx both as
// MDX and as CommonMark (Docusaurus's format: md).
func TestMarkdownCompilesAsMDX(t *testing.T) {
	node := testenv.LookPath(t, "node")
	modules := mdxModules(t)
	contracts := examples(t)
	contracts["markup"] = "testdata/markup.yaml"
	var pages []string
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range contracts {
			if !yield(k) {
				return
			}
		}
	}) {
		out := filepath.Join(t.TempDir(), name)
		res, err := Build(context.Background(), Options{Contract: contracts[name], Out: out, MarkdownOnly: true})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, f := range res.Files {
			if strings.HasSuffix(f.Path, ".md") {
				pages = append(pages, filepath.Join(out, filepath.FromSlash(f.Path)))
			}
		}
	}
	if len(pages) < 20 {
		t.Fatalf("only %d pages to compile", len(pages))
	}
	script := filepath.Join(t.TempDir(), "compile.mjs")
	if err := os.WriteFile(script, []byte(mdxScript), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, append([]string{script}, pages...)...)
	cmd.Env = append(os.Environ(), "RETRYSPEC_MDX_MODULES="+modules)
	stdout, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("node: %v\n%s", err, stderr)
	}
	var failures []struct {
		File, Format, Message string
		Line, Column          int
	}
	if err := json.Unmarshal(stdout, &failures); err != nil {
		t.Fatalf("reading the compiler's report %q: %v", stdout, err)
	}
	for _, f := range failures {
		t.Errorf("%s:%d:%d: does not compile as %s: %s", f.File, f.Line, f.Column, f.Format, f.Message)
	}
	t.Logf("compiled %d pages as MDX and as CommonMark", len(pages))
}
