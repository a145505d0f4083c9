package render

import (
	"bytes"
	"errors"
	"fmt"
	htmltemplate "html/template"
	"path"
	"runtime"
	"strings"
	"sync"
)

// NavItem is one link of the site navigation.
type NavItem struct {
	Title, Href string
	Current     bool
	// Sub: a rule page, listed under the rule list while it is shown.
	Sub bool
}

// navGroup is one section of the sidebar ("" for the integrator pages).
type navGroup struct {
	Title string
	Items []NavItem
}

type layoutData struct {
	Title       string
	Description string
	SiteName    string
	Root        string
	Groups      []navGroup
	TOC         []Heading
	Prev, Next  *NavItem
	Content     htmltemplate.HTML
	Source      string
}

// HTML renders the site: one HTML page per Markdown page, the assets, the
// generated highlighting style sheet and the search index. The pictures are
// the same files as the Markdown's.
func HTML(in Inputs, pages []Page, t *Templates) ([]File, error) {
	return NewHighlighter().HTML(in, pages, t)
}

// HTML is the package's HTML, its code highlighted through h: the blocks
// h was asked to prepare are not highlighted again.
func (h *Highlighter) HTML(in Inputs, pages []Page, t *Templates) ([]File, error) {
	// Pages parse independently, then their code is highlighted (the
	// bulk of the work), then each page renders into the layout; each
	// step spreads over the cores, keeping the output in page order so
	// the result stays deterministic.
	parsed := make([]parsedPage, len(pages))
	parallel(len(pages), func(i int) {
		parsed[i] = parsePage(pages[i].Markdown)
		parsed[i].path = pages[i].Path
	})
	ptrs := make([]*parsedPage, len(pages))
	for i := range parsed {
		ptrs[i] = &parsed[i]
	}
	if err := highlightCode(ptrs, h); err != nil {
		return nil, err
	}
	outlines := make([]outline, len(pages))
	renderErrs := make([]error, len(pages))
	errs := make([]error, len(pages))
	files := make([]File, len(pages))
	parallel(len(pages), func(i int) {
		var body []byte
		body, outlines[i], renderErrs[i] = parsed[i].render()
		if renderErrs[i] != nil {
			renderErrs[i] = fmt.Errorf("%s: %w", pages[i].Path, renderErrs[i])
			return
		}
		files[i], errs[i] = htmlPage(in, pages, i, body, outlines[i], t)
	})
	if err := errors.Join(renderErrs...); err != nil {
		return nil, err
	}
	// A mistake in the layout fails every page the same way: report the
	// template error once, not once per page.
	for _, err := range errs {
		var te *TemplateError
		if errors.As(err, &te) {
			return nil, te
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	for _, name := range sortedKeys(t.assets) {
		files = append(files, File{Path: "assets/" + name, Data: t.assets[name]})
	}
	css, err := ChromaCSS()
	if err != nil {
		return nil, err
	}
	files = append(files, File{Path: "assets/chroma.css", Data: css})
	files = append(files, File{Path: SearchIndex, Data: searchIndex(pages, outlines)})
	return files, nil
}

func parallel(n int, f func(i int)) {
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

// siteNav is the sidebar as seen from page cur: the integrator pages, then
// the maintainers' section with the rule list (and the current rule page,
// when it is one; 39 rule links on every page would bury the rest).
func siteNav(pages []Page, cur int) []navGroup {
	root := strings.Repeat("../", strings.Count(pages[cur].Path, "/"))
	groups := []navGroup{{}}
	for i, p := range pages {
		item := NavItem{Title: navTitle(p), Href: root + HTMLPath(p.Path), Current: i == cur}
		switch {
		case p.Group == "":
			groups[0].Items = append(groups[0].Items, item)
		case p.Path == RulesIndex:
			groups = append(groups, navGroup{Title: p.Group, Items: []NavItem{item}})
		case i == cur:
			item.Sub = true
			groups[len(groups)-1].Items = append(groups[len(groups)-1].Items, item)
		}
	}
	return groups
}

// neighbours are the previous and next pages in reading order, within the
// page's own sidebar section.
func neighbours(pages []Page, cur int) (prev, next *NavItem) {
	root := strings.Repeat("../", strings.Count(pages[cur].Path, "/"))
	link := func(i int) *NavItem {
		if i < 0 || i >= len(pages) || pages[i].Group != pages[cur].Group {
			return nil
		}
		return &NavItem{Title: navTitle(pages[i]), Href: root + HTMLPath(pages[i].Path)}
	}
	return link(cur - 1), link(cur + 1)
}

// htmlPage renders one page into the layout.
func htmlPage(in Inputs, pages []Page, i int, body []byte, ol outline, t *Templates) (File, error) {
	p := pages[i]
	root := strings.Repeat("../", strings.Count(p.Path, "/"))
	var toc []Heading
	for _, h := range ol[1:] {
		if !h.InTabs && h.ID != "" {
			toc = append(toc, h)
		}
	}
	prev, next := neighbours(pages, i)
	var b bytes.Buffer
	b.Grow(len(body) + 4<<10) // the layout (head, sidebar, contents) is about 3 KB
	err := t.layout.Execute(&b, layoutData{
		Title:       p.Title,
		Description: p.Description,
		SiteName:    in.Contract.API.Name,
		Root:        root,
		Groups:      siteNav(pages, i),
		TOC:         toc,
		Prev:        prev,
		Next:        next,
		// Trusted: goldmark output of escaped Markdown, raw HTML off.
		Content: htmltemplate.HTML(body),
		Source:  path.Base(in.Contract.File),
	})
	if err != nil {
		return File{}, fmt.Errorf("layout for %s: %w", p.Path, templateError(err))
	}
	return File{Path: HTMLPath(p.Path), Data: b.Bytes()}, nil
}

func navTitle(p Page) string {
	if p.Path == "index.md" {
		return "Overview"
	}
	return p.Title
}

// HTMLPath maps a Markdown page path to its HTML page.
func HTMLPath(md string) string {
	return strings.TrimSuffix(md, ".md") + ".html"
}
