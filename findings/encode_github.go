package findings

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// GitHub workflow commands: data escapes %, CR and LF; property values
// also escape : and , (actions/toolkit, packages/core/src/command.ts).
var (
	ghData     = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	ghProperty = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)

// encodeGitHub writes one annotation per finding: errors and warnings as
// such, waived findings as notices so they stay visible without failing.
func encodeGitHub(w io.Writer, r Report) error {
	bw := bufio.NewWriter(w)
	for _, f := range r.Findings {
		cmd := f.Severity.String()
		title := f.Rule
		msg := f.Message
		if f.Fix != "" {
			msg += "\nfix: " + f.Fix
		}
		if f.Waived {
			cmd, title = "notice", f.Rule+" (waived)"
			msg += "\nwaived: " + f.WaivedBecause
		}
		props := []string{"file=" + ghProperty.Replace(f.File)}
		if f.Line > 0 {
			props = append(props, fmt.Sprintf("line=%d", f.Line), fmt.Sprintf("col=%d", f.Column))
			if f.EndColumn > f.Column {
				props = append(props, fmt.Sprintf("endColumn=%d", f.EndColumn))
			}
		}
		props = append(props, "title="+ghProperty.Replace(title))
		fmt.Fprintf(bw, "::%s %s::%s\n", cmd, strings.Join(props, ","), ghData.Replace(msg))
	}
	return bw.Flush()
}
