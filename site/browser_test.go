package site

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/retryspec/retryspec/internal/testenv"
)

// axePath finds axe-core as .ci/install-site installs it.
func axePath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("RETRYSPEC_AXE"); p != "" {
		return p
	}
	cache := os.Getenv("RETRYSPEC_CACHE")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache", "retryspec")
	}
	p := filepath.Join(cache, "site-node", "node_modules", "axe-core", "axe.min.js")
	if _, err := os.Stat(p); err != nil {
		testenv.Missing(t, "axe-core at "+p+" (run .ci/install-site)")
	}
	return p
}

func screenshotDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("RETRYSPEC_SCREENSHOTS")
	if dir == "" {
		dir = filepath.Join("testdata", "screenshots")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

type axeViolation struct {
	ID     string   `json:"id"`
	Impact string   `json:"impact"`
	Help   string   `json:"help"`
	Nodes  []string `json:"nodes"`
}

const runAxe = `axe.run(document, {resultTypes: ["violations"]}).then(function (r) {
  return r.violations.filter(function (v) { return v.impact === "serious" || v.impact === "critical"; })
    .map(function (v) { return {id: v.id, impact: v.impact, help: v.help,
      nodes: v.nodes.slice(0, 5).map(function (n) { return n.target.join(" "); })}; });
})`

// do runs one protocol command as an action.
func do[P, R any](c cdp.Command[P, R], p P) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := cdp.Call(ctx, t, c, p)
		return chromedp.Void{}, err
	}
}

func colorScheme(scheme string) chromedp.Action[chromedp.Void] {
	return do(emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}},
	})
}

// TestSiteInBrowser opens every page of the example site in Debian's
// headless Chromium: axe-core finds no serious or critical violation in
// the light or the dark theme or at phone width; each page has the sidebar
// with the current page marked, no sideways scrolling at 1280 or 390 px,
// an on-page contents list matching its headings and picture text of
// readable size; no page requests anything from another host or logs a
// console error; search, a language tab and a copy button work; and each
// page is captured at 1280 and 390 px, light and dark, for a person to
// look at (testdata/screenshots, or $RETRYSPEC_SCREENSHOTS).
func TestSiteInBrowser(t *testing.T) {
	chromium := testenv.LookPath(t, "chromium")
	axe, err := os.ReadFile(axePath(t))
	if err != nil {
		t.Fatal(err)
	}
	shots := screenshotDir(t)

	// The real site of the example contract.
	root := t.TempDir()
	siteDir := filepath.Join(root, "site")
	res, err := Build(context.Background(), Options{Contract: examples(t)["payouts"], Out: siteDir})
	if err != nil {
		t.Fatal(err)
	}
	files := res.Files
	var pages []string
	for _, f := range files {
		if strings.HasSuffix(f.Path, ".html") {
			pages = append(pages, f.Path)
		}
	}
	minFont := svgMinFont(t, files)
	srv := httptest.NewServer(http.FileServer(http.Dir(root)))
	defer srv.Close()

	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chromium),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
	)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(alloc)
	defer cancel()
	if err := chromedp.Do(ctx); err != nil { // start the browser
		t.Fatalf("starting chromium: %v", err)
	}
	// No time limit on the whole test: a hang ends in go test's -timeout,
	// and the deferred cancel stops the browser.

	var mu sync.Mutex
	var consoleErrors []string
	page := ""
	go func() {
		for m, err := range chromedp.Console(ctx) {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleException {
				mu.Lock()
				consoleErrors = append(consoleErrors, fmt.Sprintf("%s: %s %s", page, m.Type, m.Text))
				mu.Unlock()
			}
		}
	}()

	for _, p := range pages {
		mu.Lock()
		page = p
		mu.Unlock()
		url := srv.URL + "/site/" + p
		if err := chromedp.Do(ctx,
			chromedp.EmulateViewport(1280, 800),
			colorScheme("light"),
			chromedp.Navigate(url),
			chromedp.WaitReady(chromedp.CSS("main")),
		); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](string(axe))); err != nil {
			t.Fatalf("%s: injecting axe-core: %v", p, err)
		}
		for _, scheme := range []string{"light", "dark"} {
			if err := chromedp.Do(ctx, colorScheme(scheme)); err != nil {
				t.Fatal(err)
			}
			vs, err := chromedp.Run(ctx, chromedp.Evaluate[[]axeViolation](runAxe, chromedp.EvalAwaitPromise))
			if err != nil {
				t.Fatalf("%s (%s): axe: %v", p, scheme, err)
			}
			for _, v := range vs {
				t.Errorf("%s (%s theme): axe %s violation %s: %s at %v", p, scheme, v.Impact, v.ID, v.Help, v.Nodes)
			}
		}
		checkLayout(t, ctx, p, 1280, minFont)
		// And at phone width, where wide content starts to scroll.
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile), colorScheme("light")); err != nil {
			t.Fatal(err)
		}
		vs, err := chromedp.Run(ctx, chromedp.Evaluate[[]axeViolation](runAxe, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatalf("%s (phone): axe: %v", p, err)
		}
		for _, v := range vs {
			t.Errorf("%s (phone width): axe %s violation %s: %s at %v", p, v.Impact, v.ID, v.Help, v.Nodes)
		}
		checkLayout(t, ctx, p, 390, minFont)
		name := strings.ReplaceAll(strings.TrimSuffix(p, ".html"), "/", "_")
		shotsOf := []struct {
			suffix string
			w, h   int64
			mobile bool
			scheme string
		}{
			{"desktop", 1280, 800, false, "light"},
			{"desktop-dark", 1280, 800, false, "dark"},
			{"phone", 390, 844, true, "light"},
			{"phone-dark", 390, 844, true, "dark"},
		}
		for _, s := range shotsOf {
			var opts []chromedp.EmulateViewportOption
			if s.mobile {
				opts = append(opts, chromedp.EmulateMobile, chromedp.EmulateTouch)
			}
			if err := chromedp.Do(ctx, chromedp.EmulateViewport(s.w, s.h, opts...), colorScheme(s.scheme)); err != nil {
				t.Fatal(err)
			}
			if s.mobile {
				checkPhoneLayout(t, ctx, p)
			}
			img, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
			if err != nil {
				t.Fatalf("%s: screenshot: %v", p, err)
			}
			if err := os.WriteFile(filepath.Join(shots, name+"-"+s.suffix+".png"), img, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		// Every request the page made went to the test server: no
		// external fonts, scripts or images.
		reqs, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`performance.getEntriesByType("resource").map(function (e) { return e.name; })`))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range reqs {
			if !strings.HasPrefix(r, srv.URL+"/") && !strings.HasPrefix(r, "data:") {
				t.Errorf("%s: external request %s", p, r)
			}
		}
	}

	// Search, from the header's box: results name the page and section.
	if err := chromedp.Do(ctx,
		chromedp.EmulateViewport(1280, 800),
		colorScheme("light"),
		chromedp.Navigate(srv.URL+"/site/index.html"),
		chromedp.WaitVisible(chromedp.CSS(`#search-input`)),
		chromedp.SendKeys(chromedp.CSS(`#search-input`), "jitter"),
		chromedp.WaitVisible(chromedp.CSS(`.search-results a`)),
	); err != nil {
		t.Fatalf("search: %v", err)
	}
	results, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll(".search-results a")).map(function (a) { return a.querySelector(".where").textContent + " | " + a.getAttribute("href"); })`))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(results, "Retrying requests › Backoff with jitter | retrying.html#backoff-with-jitter") {
		t.Errorf("searching for jitter: results %q lack the Retrying page's backoff section", results)
	}
	if img, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS("body"))); err == nil {
		os.WriteFile(filepath.Join(shots, "search-jitter-desktop.png"), img, 0o644)
	}

	// Tabs and copy buttons, on the Retrying page's language tabs.
	if !hasTabs(files) {
		t.Fatal("retrying.html has no language tabs")
	}
	tabsURL := srv.URL + "/site/retrying.html"
	if err := chromedp.Do(ctx,
		chromedp.EmulateViewport(1280, 800),
		colorScheme("light"),
		chromedp.Navigate(tabsURL),
		chromedp.WaitVisible(chromedp.CSS(`[role="tab"]`)),
	); err != nil {
		t.Fatalf("tabs page: %v", err)
	}
	before, err := chromedp.Run(ctx, chromedp.Evaluate[[]bool](`Array.from(document.querySelectorAll(".tab-panel")).map(function (p) { return !p.hidden; })`))
	if err != nil {
		t.Fatal(err)
	}
	if len(before) < 2 || !before[0] || before[1] {
		t.Fatalf("before the click, visible panels = %v; want only the first", before)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[role="tab"]:nth-of-type(2)`))); err != nil {
		t.Fatalf("clicking the second tab: %v", err)
	}
	after, err := chromedp.Run(ctx, chromedp.Evaluate[[]bool](`Array.from(document.querySelectorAll(".tab-panel")).map(function (p) { return !p.hidden; })`))
	if err != nil {
		t.Fatal(err)
	}
	if after[0] || !after[1] {
		t.Errorf("after clicking the second tab, visible panels = %v; want only the second", after)
	}
	selected, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[role="tab"][aria-selected="true"]').textContent`))
	if selected == "" {
		t.Error("no tab is aria-selected after the click")
	}
	// The choice is remembered (issue 28): the page opened again shows
	// the language picked, not the first tab.
	if err := chromedp.Do(ctx, chromedp.Navigate(tabsURL), chromedp.WaitVisible(chromedp.CSS(`[role="tab"]`))); err != nil {
		t.Fatal(err)
	}
	again, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[role="tab"][aria-selected="true"]').textContent`))
	if err != nil || again != selected {
		t.Errorf("after opening the page again the selected tab is %q, want the reader's pick %q (%v)", again, selected, err)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`.tab-panel:not([hidden]) .copy`))); err != nil {
		t.Fatalf("clicking a copy button: %v", err)
	}
	// The copy is asynchronous: wait in the page for its outcome (the
	// label itself returns to "Copy" after two seconds), on the attribute's
	// change, not on a clock.
	state, err := chromedp.Run(ctx, chromedp.Evaluate[string](`new Promise(function (resolve) {
	  var el = document.querySelector('.tab-panel:not([hidden]) .copy');
	  var check = function () { var s = el.getAttribute("data-state"); if (s) { resolve(s); return true; } return false; };
	  if (!check()) new MutationObserver(check).observe(el, {attributes: true, attributeFilter: ["data-state"]});
	})`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if state != "copied" {
		t.Errorf("copy button state %q after a click, want copied", state)
	}
	img, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err == nil {
		os.WriteFile(filepath.Join(shots, "retrying-tabs-clicked-desktop.png"), img, 0o644)
	}

	time.Sleep(200 * time.Millisecond) // let late console events arrive
	mu.Lock()
	defer mu.Unlock()
	for _, e := range consoleErrors {
		t.Errorf("console error: %s", e)
	}
	t.Logf("checked %d pages; screenshots in %s", len(pages), shots)
}

func hasTabs(files []File) bool {
	for _, f := range files {
		if f.Path == "retrying.html" {
			return strings.Contains(string(f.Data), `class="tab-panel"`)
		}
	}
	return false
}

// svgFont finds the font sizes a picture's style sheet sets.
var svgFont = regexp.MustCompile(`font-size:(\d+(?:\.\d+)?)px`)

// svgMinFont is the smallest font size any picture of the site is drawn
// with, in its own pixels.
func svgMinFont(t *testing.T, files []File) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for _, f := range files {
		if !strings.HasSuffix(f.Path, ".svg") || strings.Contains(f.Path, "/") {
			continue
		}
		least := 0.0
		for _, m := range svgFont.FindAllSubmatch(f.Data, -1) {
			px, _ := strconv.ParseFloat(string(m[1]), 64)
			if least == 0 || px < least {
				least = px
			}
		}
		out[f.Path] = least
	}
	return out
}

// layoutFacts is what checkLayout reads from a page.
type layoutFacts struct {
	Sidebar     bool     `json:"sidebar"`
	ScrollWidth float64  `json:"scrollWidth"`
	ClientWidth float64  `json:"clientWidth"`
	TOC         []string `json:"toc"`
	Headings    []string `json:"headings"`
	Images      []struct {
		Src     string  `json:"src"`
		Shown   float64 `json:"shown"`
		Natural float64 `json:"natural"`
	} `json:"images"`
}

const readLayout = `(function () {
  var doc = document.documentElement;
  return {
    sidebar: !!document.querySelector("nav.sidebar a[aria-current=page]") && document.querySelector("nav.sidebar").getBoundingClientRect().height > 0,
    scrollWidth: doc.scrollWidth,
    clientWidth: doc.clientWidth,
    toc: Array.from(document.querySelectorAll(".toc a")).map(function (a) { return a.getAttribute("href").slice(1); }),
    headings: Array.from(document.querySelectorAll(".content h2[id], .content h3[id]"))
      .filter(function (h) { return !h.closest(".tab-panel"); })
      .map(function (h) { return h.id; }),
    images: Array.from(document.querySelectorAll(".content img")).map(function (img) {
      return {src: img.getAttribute("src"), shown: img.getBoundingClientRect().width, natural: img.naturalWidth};
    })
  };
})()`

// checkLayout asserts the layout of the page in the current viewport: the
// sidebar with the current page marked, no sideways scrolling of the page,
// an on-page contents list that matches the headings, and picture text of
// at least 12 px on a desktop and 11 px on a phone as shown.
func checkLayout(t *testing.T, ctx context.Context, page string, width int, minFont map[string]float64) {
	t.Helper()
	f, err := chromedp.Run(ctx, chromedp.Evaluate[layoutFacts](readLayout))
	if err != nil {
		t.Fatalf("%s: reading the layout: %v", page, err)
	}
	if !f.Sidebar {
		t.Errorf("%s at %d px: no sidebar with the current page marked", page, width)
	}
	if f.ScrollWidth > f.ClientWidth {
		t.Errorf("%s at %d px: the page scrolls sideways (%.0f px of content in %.0f)", page, width, f.ScrollWidth, f.ClientWidth)
	}
	if !slices.Equal(f.TOC, f.Headings) && !(len(f.TOC) == 0 && len(f.Headings) == 0) {
		t.Errorf("%s: the contents list %q does not match the headings %q", page, f.TOC, f.Headings)
	}
	least := 12.0
	if width < 600 {
		least = 11
	}
	for _, img := range f.Images {
		font, ok := minFont[path.Base(img.Src)]
		if !ok || img.Natural == 0 {
			t.Errorf("%s: picture %s not found or not loaded", page, img.Src)
			continue
		}
		if shown := font * img.Shown / img.Natural; shown < least-0.05 {
			t.Errorf("%s at %d px: %s shown %.0f px wide of %.0f drawn: its smallest text is %.1f px, want at least %.0f", page, width, img.Src, img.Shown, img.Natural, shown, least)
		}
	}
}

// checkPhoneLayout (issue 28), at phone width: no word of inline code (a
// run of letters and digits: a line may break at an underscore's <wbr>, a
// hyphen or a space, never inside "idempotent") is split over two lines,
// and every JSON example body fits its box without sideways scrolling.
func checkPhoneLayout(t *testing.T, ctx context.Context, page string) {
	t.Helper()
	split, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`(function () {
	  var out = [];
	  document.querySelectorAll(":not(pre) > code").forEach(function (code) {
	    var walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
	    for (var n = walker.nextNode(); n; n = walker.nextNode()) {
	      var re = /[A-Za-z0-9]+/g, m;
	      while ((m = re.exec(n.data))) {
	        var r = document.createRange();
	        r.setStart(n, m.index); r.setEnd(n, m.index + m[0].length);
	        var tops = {};
	        Array.prototype.forEach.call(r.getClientRects(), function (c) { if (c.width > 0) tops[Math.round(c.top)] = true; });
	        if (Object.keys(tops).length > 1) out.push(m[0]);
	      }
	    }
	  });
	  return out;
	})()`))
	if err != nil {
		t.Fatalf("%s: %v", page, err)
	}
	for _, w := range split {
		t.Errorf("%s at phone width: inline code %q wraps inside a word", page, w)
	}
	wide, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('.code[data-lang="json"] pre')).filter(function (p) { return p.scrollWidth > p.clientWidth + 1; }).map(function (p) { return p.textContent.slice(0, 80); })`))
	if err != nil {
		t.Fatalf("%s: %v", page, err)
	}
	for _, w := range wide {
		t.Errorf("%s at phone width: an example body does not fit its box: %q", page, w)
	}
}
