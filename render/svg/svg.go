// Package svg draws the two pictures of the Retrying and Idempotent pages
// from a contract: the backoff schedule chart and the key state diagram.
// Every contract string is XML-escaped; colours come from a style sheet
// inside the SVG that follows prefers-color-scheme, so an SVG shown as an
// image on a dark page is dark too. Output is deterministic.
package svg

import (
	"fmt"
	"html"
	"strconv"
	"strings"
	"time"

	"github.com/retryspec/retryspec/contract"
)

// style is shared by both pictures: a background that follows the system
// theme, so the picture is readable whatever page it sits on.
const style = `<style>
svg{--bg:#ffffff;--fg:#1f2328;--muted:#57606a;--grid:#d0d7de;--band:#b6d7ff;--line:#0550ae;--total:#8250df;--warn:#b3261e;--box:#f6f8fa}
@media (prefers-color-scheme:dark){svg{--bg:#0d1117;--fg:#e6edf3;--muted:#9da7b3;--grid:#30363d;--band:#1f4b7f;--line:#79c0ff;--total:#d2a8ff;--warn:#ff7b72;--box:#161b22}}
.bg{fill:var(--bg)}
text{fill:var(--fg);font-family:system-ui,-apple-system,"Segoe UI",sans-serif;font-size:13px}
.small{font-size:12px;fill:var(--muted)}
.title{font-size:15px;font-weight:600}
.mono{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:13px}
.grid{stroke:var(--grid);stroke-width:1}
.band{fill:var(--band)}
.env{stroke:var(--line);stroke-width:3}
.total{fill:var(--total)}
.limit{stroke:var(--warn);stroke-width:2;stroke-dasharray:6 4}
.limitlabel{fill:var(--warn);font-size:12px}
.box{fill:var(--box);stroke:var(--fg);stroke-width:1.5}
.arrow{stroke:var(--fg);stroke-width:1.5;fill:none;marker-end:url(#arrowhead)}
.head{fill:var(--fg)}
</style>`

// esc escapes s for SVG text and attribute values.
func esc(s string) string { return html.EscapeString(s) }

// dur writes a duration the way the contract does (1s, 2m, 250ms).
func dur(d time.Duration) string {
	if d%time.Millisecond != 0 {
		d = d.Round(time.Millisecond)
	}
	return contract.FormatDuration(d)
}

func num(f float64) string {
	return strconv.FormatFloat(f, 'f', -1, 64)
}

func open(b *strings.Builder, w, h int, id, title, desc string) {
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-labelledby="%s-title %s-desc">`+"\n", w, h, w, h, id, id)
	fmt.Fprintf(b, `<title id="%s-title">%s</title>`+"\n", id, esc(title))
	fmt.Fprintf(b, `<desc id="%s-desc">%s</desc>`+"\n", id, esc(desc))
	b.WriteString(style + "\n")
	fmt.Fprintf(b, `<rect class="bg" x="0" y="0" width="%d" height="%d"/>`+"\n", w, h)
}

func text(b *strings.Builder, x, y float64, class, anchor, s string) {
	attrs := ""
	if class != "" {
		attrs += ` class="` + class + `"`
	}
	if anchor != "" {
		attrs += ` text-anchor="` + anchor + `"`
	}
	fmt.Fprintf(b, `<text x="%s" y="%s"%s>%s</text>`+"\n", num(round1(x)), num(round1(y)), attrs, esc(s))
}

func round1(f float64) float64 {
	return float64(int64(f*10+0.5*sign(f))) / 10
}

func sign(f float64) float64 {
	if f < 0 {
		return -1
	}
	return 1
}
