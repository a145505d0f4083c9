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
	// Box width fits the longest line (codes can be 64 characters).
	longest := 0
	for _, s := range states {
		for _, l := range s.lines {
			longest = max(longest, utf8.RuneCountInString(l))
		}
	}
	bw := max(210, int(float64(longest)*7.4)+28)
	gap := 70
	const bh, top = 150, 70
	w := 3*bw + 2*gap + 40
	h := 340
	var b strings.Builder
	open(&b, w, h, "keystates", c.API.Name+": idempotency key states", statesDesc(c, states))
	b.WriteString(`<defs><marker id="arrowhead" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse"><path class="head" d="M0,0 L10,5 L0,10 z"/></marker></defs>` + "\n")
	xs := make([]int, 3)
	for i, s := range states {
		x := 20 + i*(bw+gap)
		xs[i] = x
		fmt.Fprintf(&b, `<rect class="box" x="%d" y="%d" width="%d" height="%d" rx="8"/>`+"\n", x, top, bw, bh)
		text(&b, float64(x+12), float64(top+24), "title", "", s.name)
		for j, l := range s.lines {
			text(&b, float64(x+12), float64(top+48+j*18), "mono", "", l)
		}
	}
	// absent -> in-flight, in-flight -> complete
	arrow(&b, xs[0]+bw, top+40, xs[1], top+40)
	text(&b, float64(xs[0]+bw+gap/2), float64(top+32), "small", "middle", "claim")
	arrow(&b, xs[1]+bw, top+40, xs[2], top+40)
	text(&b, float64(xs[1]+bw+gap/2), float64(top+32), "small", "middle", "stored")
	// complete -> absent, below, after the replay window.
	y := top + bh
	fmt.Fprintf(&b, `<path class="arrow" d="M%d,%d C%d,%d %d,%d %d,%d"/>`+"\n", xs[2]+bw/2, y, xs[2]+bw/2, y+70, xs[0]+bw/2, y+70, xs[0]+bw/2, y+2)
	text(&b, float64(w/2), float64(y+78), "small", "middle", fmt.Sprintf("after the %s replay window: the key is free, a reuse is a new request", id.ReplayWindow.String()))
	// in-flight self-loop: takeover of an abandoned claim.
	if id.InFlight != nil && id.InFlight.Takeover == "conditional-update" && !id.InFlight.LockTimeout.IsZero() {
		x := xs[1] + bw/2
		fmt.Fprintf(&b, `<path class="arrow" d="M%d,%d C%d,%d %d,%d %d,%d"/>`+"\n", x-40, top, x-40, top-40, x+40, top-40, x+40, top-2)
		// Resuming at a recovery point is only true of a contract that has
		// some; otherwise the retry that takes over runs the request again.
		label := fmt.Sprintf("claim older than %s: taken over by a retry", id.InFlight.LockTimeout.String())
		if c.HasRecoveryPoints() {
			label = fmt.Sprintf("claim older than %s: taken over, resumes at its recovery point", id.InFlight.LockTimeout.String())
		}
		text(&b, float64(x), float64(top-44), "small", "middle", label)
	}
	b.WriteString("</svg>\n")
	return []byte(b.String())
}

func arrow(b *strings.Builder, x1, y1, x2, y2 int) {
	fmt.Fprintf(b, `<path class="arrow" d="M%d,%d L%d,%d"/>`+"\n", x1, y1, x2-2, y2)
}

func conflict(c contract.Conflict) string {
	return fmt.Sprintf("%d %s", c.Status, c.Code)
}

func inFlightLines(id contract.Idempotency) []string {
	if id.InFlight == nil {
		return []string{"Not represented: the contract", "has no in-flight state."}
	}
	switch id.InFlight.Response {
	case "conflict":
		return []string{"Claimed, no result yet.", "A retry gets", conflict(id.Conflicts.InFlight), "and should wait and retry."}
	case "block":
		return []string{"Claimed, no result yet.", "A retry waits for the first", "request's result."}
	case "accepted":
		return []string{"Claimed, no result yet.", "A retry gets 202 Accepted", "with a status URL to poll."}
	}
	return []string{"Claimed, no result yet.", "A retry is let through", "(unsafe: runs twice)."}
}

func completeLines(id contract.Idempotency) []string {
	lines := []string{"Result stored.", "Same body: the stored status", "and body, unchanged."}
	if id.ReplayHeader != "" {
		lines = append(lines, id.ReplayHeader+": true")
	}
	lines = append(lines, "Other body:", conflict(id.Conflicts.PayloadMismatch))
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
