package render

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/contract/rules"
	"github.com/retryspec/retryspec/render/svg"
)

// negativeDuration is a duration figure with a minus sign, as
// FormatDuration and HumanDuration print an overflowed value ("-63503d23h34m30s710ms",
// "-1 hour"). "2-3s" (a range) is not one: a word character precedes the dash.
var negativeDuration = regexp.MustCompile(`(?:^|[^\w.-])-\d+(?:\.\d+)? ?(?:ms|us|µs|ns|d|h|m|s|y)`)

// FuzzRenderedDurations (issue 13 item 7): for any retry figures the
// loader accepts, no page, chart or rule message prints a negative
// duration. On the original main, attempt_timeout {p99: 20000d, factor:
// 2.5} printed "elapsed at most -63503d..." in
// the chart and a 36500d window -104003d in a rule's fix. Seeds:
// testdata/fuzz/FuzzRenderedDurations and the ones below.
func FuzzRenderedDurations(f *testing.F) {
	base, err := os.ReadFile(filepath.Join("..", "examples", "payouts", "retryspec.yaml"))
	if err != nil {
		f.Fatal(err)
	}
	tmpl, err := LoadTemplates("")
	if err != nil {
		f.Fatal(err)
	}
	f.Add("36500d", "800ms", 2.5, 3, "1s", "30s", 2.0, "24h")
	f.Add("60s", "20000d", 2.5, 3, "1s", "30s", 2.0, "24h")
	f.Add("3650d", "1460d", 2.5, 1, "1s", "30s", 2.0, "3650d")
	f.Add("3650d", "100d", 2.5, 20, "3650d", "3650d", 10.0, "3650d")
	f.Add("1s", "1ms", 1.0, 100, "1ms", "1ms", 1.0, "1ms")
	f.Fuzz(func(t *testing.T, maxElapsed, p99 string, factor float64, attempts int, b, capD string, mult float64, window string) {
		for _, s := range []string{maxElapsed, p99, b, capD, window} {
			if strings.ContainsAny(s, "\n\r#:{}[]'\"") || len(s) > 40 {
				return
			}
		}
		src := string(base)
		for _, r := range []struct{ re, v string }{
			{`(?m)^  max_elapsed: .*$`, "  max_elapsed: " + maxElapsed},
			{`(?m)^    p99: .*$`, "    p99: " + p99},
			{`(?m)^    factor: .*$`, fmt.Sprintf("    factor: %g", factor)},
			{`(?m)^  max_attempts: .*$`, fmt.Sprintf("  max_attempts: %d", attempts)},
			{`(?m)^    base: .*$`, "    base: " + b},
			{`(?m)^    cap: .*$`, "    cap: " + capD},
			{`(?m)^    multiplier: .*$`, fmt.Sprintf("    multiplier: %g", mult)},
			{`(?m)^  replay_window: .*$`, "  replay_window: " + window},
		} {
			src = regexp.MustCompile(r.re).ReplaceAllLiteralString(src, r.v)
		}
		c, err := contract.Parse("retryspec.yaml", []byte(src))
		if err != nil {
			return // refused at load time: the caps' job
		}
		var out []string
		for _, fd := range rules.Run(c) {
			out = append(out, "rule "+fd.Rule+": "+fd.Message+" | fix: "+fd.Fix)
		}
		out = append(out, "retry-schedule.svg: "+string(svg.Schedule(c)), "key-states.svg: "+string(svg.KeyStates(c)))
		pages, _, err := Markdown(Inputs{Contract: c, Rules: rules.Catalog()}, tmpl)
		if err != nil {
			t.Fatalf("rendering: %v", err)
		}
		for _, p := range pages {
			out = append(out, p.Path+": "+string(p.Markdown))
		}
		for _, o := range out {
			if m := negativeDuration.FindString(o); m != "" {
				i := strings.Index(o, m)
				t.Errorf("negative duration %q in %.80s ... %.120s", strings.TrimSpace(m), o, o[max(0, i-80):min(len(o), i+40)])
			}
		}
	})
}
