package site

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/internal/testenv"
)

// docusaurusConfig is the smallest site a team would put the Markdown
// pages in: docs only, served from the root, the classic preset with its
// blog and pages off and no theme plugin that calls out (no Algolia, no
// analytics). Every broken link, anchor or image fails the build, so the
// pages' relative links are checked by Docusaurus itself.
const docusaurusConfig = `// Written by retryspec's TestMarkdownBuildsWithDocusaurus.
module.exports = {
  title: "retryspec Markdown check",
  url: "http://localhost",
  baseUrl: "/",
  trailingSlash: true,
  onBrokenLinks: "throw",
  onBrokenAnchors: "throw",
  onDuplicateRoutes: "throw",
  markdown: {
    format: "mdx",
    hooks: { onBrokenMarkdownLinks: "throw", onBrokenMarkdownImages: "throw" },
  },
  presets: [["classic", { docs: { routeBasePath: "/" }, blog: false, pages: false, theme: {} }]],
};
`

// docusaurusModules finds node_modules as .ci/install-site installs it.
func docusaurusModules(t *testing.T) string {
	t.Helper()
	cache := os.Getenv("RETRYSPEC_CACHE")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache", "retryspec")
	}
	dir := filepath.Join(cache, "docusaurus", "node_modules")
	for _, pkg := range []string{"@docusaurus/core", "@docusaurus/preset-classic", "react", "react-dom"} {
		if _, err := os.Stat(filepath.Join(dir, pkg, "package.json")); err != nil {
			testenv.Missing(t, pkg+" under "+dir+" (run .ci/install-site)")
		}
	}
	return dir
}

// TestMarkdownBuildsWithDocusaurus lays the payouts example's Markdown
// pages (front matter, _category_.json, pictures) into a minimal Docusaurus
// site as its docs folder and runs `docusaurus build`: it must succeed,
// with links checked, and give every page its own HTML file.
func TestMarkdownBuildsWithDocusaurus(t *testing.T) {
	if testing.Short() && !testenv.OnCI() {
		t.Skip("SKIPPED in -short: a Docusaurus build compiles ~1,300 npm packages' worth of webpack")
	}
	node := testenv.LookPath(t, "node")
	modules := docusaurusModules(t)

	tmp := t.TempDir()
	out := filepath.Join(tmp, "out")
	res, err := Build(context.Background(), Options{Contract: examples(t)["payouts"], Out: out, MarkdownOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	siteDir := filepath.Join(tmp, "site")
	docs := filepath.Join(siteDir, "docs")
	var pages []string // routes, relative to the docs folder, without .md
	for _, f := range res.Files {
		rel, ok := strings.CutPrefix(f.Path, "markdown/")
		if !ok {
			continue
		}
		data, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(f.Path)))
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(docs, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if page, ok := strings.CutSuffix(rel, ".md"); ok {
			pages = append(pages, page)
		}
	}
	if len(pages) < 10 {
		t.Fatalf("only %d Markdown pages to build", len(pages))
	}
	for name, body := range map[string]string{
		"docusaurus.config.js": docusaurusConfig,
		"package.json":         `{"name": "retryspec-markdown-check", "private": true}` + "\n",
	} {
		if err := os.WriteFile(filepath.Join(siteDir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The site resolves @docusaurus/* from its own node_modules.
	if err := os.Symlink(modules, filepath.Join(siteDir, "node_modules")); err != nil {
		t.Fatal(err)
	}

	// No time limit: a loaded CI machine takes minutes over this build; a
	// hang ends in go test's -timeout.
	cmd := exec.Command(node, filepath.Join(modules, "@docusaurus", "core", "bin", "docusaurus.mjs"),
		"build", "--out-dir", "build", "--no-minify")
	cmd.Dir = siteDir
	// No update check (a network call) and no webpack cache written into
	// the shared node_modules.
	cmd.Env = append(os.Environ(), "NO_UPDATE_NOTIFIER=1", "DOCUSAURUS_NO_PERSISTENT_CACHE=1")
	output, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("docusaurus build: %v\n%s", err, output)
	}
	for _, page := range pages {
		route := strings.TrimSuffix(page, "index")
		html := filepath.Join(siteDir, "build", filepath.FromSlash(route), "index.html")
		if _, err := os.Stat(html); err != nil {
			t.Errorf("page %s.md has no HTML page: %v", page, err)
		}
	}
	t.Logf("Docusaurus built %d pages", len(pages))
}
