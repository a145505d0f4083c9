package svg

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/retryspec/retryspec/contract"
)

// state is one box of the key state diagram.
type state struct {
	name  string
	lines []string // what a request that finds the key in this state gets
}

// KeyStates draws the three states of an idempotency key (absent,
// in-flight, complete), what a request gets in each, and the transitions
// between them, from the contract's conflict codes, in-flight behaviour,
// lock timeout and replay window.
func KeyStates(c *contract.Contract) []byte {
	id := c.Idempotency
	states := []state{
		{"absent", []string{"No record for (account, key).", "The request runs as a first", "attempt and claims the key."}},
		{"in-flight", inFlightLines(id)},
		{"complete", completeLines(id)},
	}
	takeover := id.InFlight != nil && id.InFlight.Takeover == contract.TakeoverConditionalUpdate && !id.InFlight.LockTimeout.IsZero()
	if takeover {
		// Resuming at a recovery point is only true of a contract that has
		// some; otherwise the retry that takes over runs the request again.
		if c.HasRecoveryPoints() {
			states[1].lines = append(states[1].lines, "A claim older than "+id.InFlight.LockTimeout.String()+" is", "taken over and resumes at", "its recovery point.")
		} else {
			states[1].lines = append(states[1].lines, "A claim older than "+id.InFlight.LockTimeout.String()+" is", "taken over by a retry,", "which runs it again.")
		}
	}
	// The boxes stack top to bottom, so the picture is narrow enough to be
	// shown at its drawn size in a page column and on a phone: 13 px text
	// stays 13 px. The box width fits the longest line (codes can be 64
	// characters); the column on the right carries the way back to absent.
	longest := 0
	for _, s := range states {
		for _, l := range s.lines {
			longest = max(longest, utf8.RuneCountInString(l))
		}
	}
	bw := max(230, int(float64(longest)*7.9)+24)
	const x, top, gap, lineH = 16, 56, 44, 19
	right := x + bw + 36 // the return path's column
	w := right + 12
	hs := make([]int, 3)
	ys := make([]int, 3)
	yy := top
	for i, s := range states {
		hs[i] = 40 + len(s.lines)*lineH
		ys[i] = yy
		yy += hs[i] + gap
	}
	h := yy - gap + 64
	var b strings.Builder
	open(&b, w, h, "keystates", c.API.Name+": idempotency key states", statesDesc(c, states))
	b.WriteString(`<defs><marker id="arrowhead" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse"><path class="head" d="M0,0 L10,5 L0,10 z"/></marker></defs>` + "\n")
	text(&b, float64(x), 26, "title", "", "Idempotency key states")
	for i, s := range states {
		fmt.Fprintf(&b, `<rect class="box" x="%d" y="%d" width="%d" height="%d" rx="8"/>`+"\n", x, ys[i], bw, hs[i])
		text(&b, float64(x+12), float64(ys[i]+24), "title", "", s.name)
		for j, l := range s.lines {
			text(&b, float64(x+12), float64(ys[i]+46+j*lineH), "mono", "", l)
		}
	}
	// absent -> in-flight -> complete, downwards.
	for i, label := range []string{"claim", "result stored"} {
		ax := x + 40
		arrow(&b, ax, ys[i]+hs[i], ax, ys[i+1])
		text(&b, float64(ax+10), float64(ys[i]+hs[i]+gap/2+5), "small", "", label)
	}
	// complete -> absent, up the right-hand column, after the replay window.
	y0, y1 := ys[2]+hs[2]/2, ys[0]+hs[0]/2
	fmt.Fprintf(&b, `<path class="arrow" d="M%d,%d H%d V%d H%d"/>`+"\n", x+bw, y0, right, y1, x+bw+2)
	text(&b, float64(x), float64(h-34), "small", "", fmt.Sprintf("After the %s replay window the key is free:", id.ReplayWindow.String()))
	text(&b, float64(x), float64(h-16), "small", "", "a reuse is a new request.")
	b.WriteString("</svg>\n")
	return []byte(b.String())
}

func arrow(b *strings.Builder, x1, y1, x2, y2 int) {
	fmt.Fprintf(b, `<path class="arrow" d="M%d,%d L%d,%d"/>`+"\n", x1, y1, x2-2, y2)
}

// conflict is how a conflict reads in a box: status and code, or under a
// GraphQL contract the code alone, since every mutation is answered 200.
func conflict(id contract.Idempotency, c contract.Conflict) string {
	if id.InGraphQL() {
		return c.Code + " (in a 200)"
	}
	return fmt.Sprintf("%d %s", c.Status, c.Code)
}

func inFlightLines(id contract.Idempotency) []string {
	if id.InFlight == nil {
		return []string{"Not represented: the contract", "has no in-flight state."}
	}
	switch id.InFlight.Response {
	case "conflict":
		return []string{"Claimed, no result yet.", "A retry gets", conflict(id, id.Conflicts.InFlight), "and should wait and retry."}
	case "block":
		return []string{"Claimed, no result yet.", "A retry waits for the first", "request's result."}
	case "accepted":
		return []string{"Claimed, no result yet.", "A retry gets 202 Accepted;", "retrying with the same key", "returns the result once stored."}
	}
	return []string{"Claimed, no result yet.", "A retry is let through", "(unsafe: runs twice)."}
}

func completeLines(id contract.Idempotency) []string {
	lines := []string{"Result stored.", "Same body: the stored status", "and body, unchanged."}
	if id.ReplayHeader != "" {
		lines = append(lines, id.ReplayHeader+": true")
	}
	lines = append(lines, "Other body:", conflict(id, id.Conflicts.PayloadMismatch))
	return lines
}

func statesDesc(c *contract.Contract, states []state) string {
	var parts []string
	for _, s := range states {
		parts = append(parts, s.name+": "+strings.Join(s.lines, " "))
	}
	return "Three states of an idempotency key. " + strings.Join(parts, " ") +
		fmt.Sprintf(" A claim moves absent to in-flight; a stored result moves in-flight to complete; after the %s replay window the key is absent again.", c.Idempotency.ReplayWindow.String())
}
