package findings

import (
	"encoding/json"
	"io"
)

// jsonReport is the documented shape (docs/contract.md): {"findings": [...], "summary": {...}}.
type jsonReport struct {
	Findings []Finding `json:"findings"`
	Summary  Summary   `json:"summary"`
}

func encodeJSON(w io.Writer, r Report) error {
	fs := r.Findings
	if fs == nil {
		fs = []Finding{} // [] rather than null for tools that iterate
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(jsonReport{Findings: fs, Summary: Summarize(r.Findings)})
}
