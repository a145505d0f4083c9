package findings

import (
	"encoding/json"
	"io"
	"net/url"
	"path/filepath"
	"strings"
)

// SARIF 2.1.0 (OASIS), the subset code scanning reads: one run, the tool's
// rules with their documentation, and one result per finding.

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool       sarifTool     `json:"tool"`
	Results    []sarifResult `json:"results"`
	ColumnKind string        `json:"columnKind"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri,omitempty"`
	Rules          []sarifRule `json:"rules"`
}

type sarifText struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown,omitempty"`
}

type sarifRule struct {
	ID                   string         `json:"id"`
	Name                 string         `json:"name"`
	ShortDescription     sarifText      `json:"shortDescription"`
	FullDescription      sarifText      `json:"fullDescription"`
	Help                 sarifText      `json:"help"`
	HelpURI              string         `json:"helpUri,omitempty"`
	DefaultConfiguration sarifConfig    `json:"defaultConfiguration"`
	Properties           map[string]any `json:"properties,omitempty"`
}

type sarifConfig struct {
	Level string `json:"level"`
}

type sarifResult struct {
	RuleID       string             `json:"ruleId"`
	RuleIndex    *int               `json:"ruleIndex,omitempty"`
	Level        string             `json:"level"`
	Message      sarifText          `json:"message"`
	Locations    []sarifLocation    `json:"locations"`
	Suppressions []sarifSuppression `json:"suppressions,omitempty"`
	Properties   map[string]any     `json:"properties,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical  `json:"physicalLocation"`
	LogicalLocations []sarifLogical `json:"logicalLocations,omitempty"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           *sarifRegion  `json:"region,omitempty"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
	EndColumn   int `json:"endColumn,omitempty"`
}

type sarifLogical struct {
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind"`
}

type sarifSuppression struct {
	Kind          string `json:"kind"`
	Justification string `json:"justification,omitempty"`
}

func sarifLevel(s Severity) string {
	if s == Error {
		return "error"
	}
	return "warning"
}

// artifactURI turns a file path into a URI reference: relative paths stay
// relative (resolved against the checkout by code scanning), absolute ones
// become file URIs; either way special characters are percent-encoded.
func artifactURI(path string) string {
	p := filepath.ToSlash(path)
	if filepath.IsAbs(path) {
		if !strings.HasPrefix(p, "/") {
			p = "/" + p // C:/x -> /C:/x
		}
		return (&url.URL{Scheme: "file", Path: p}).String()
	}
	return (&url.URL{Path: p}).String()
}

func sarifRuleOf(d RuleDoc) sarifRule {
	var md, txt strings.Builder
	txt.WriteString(d.Rationale)
	md.WriteString(d.Rationale)
	if d.Fix != "" {
		txt.WriteString("\n\nFix: " + d.Fix)
		md.WriteString("\n\n**Fix:** " + d.Fix)
	}
	if len(d.Sources) > 0 {
		txt.WriteString("\n\nSources:")
		md.WriteString("\n\n**Sources:**\n")
		for _, s := range d.Sources {
			txt.WriteString("\n- " + s.Title + " <" + s.URL + ">")
			md.WriteString("\n- [" + s.Title + "](" + s.URL + ")")
		}
	}
	r := sarifRule{
		ID:                   d.ID,
		Name:                 sarifRuleName(d.ID),
		ShortDescription:     sarifText{Text: d.Summary},
		FullDescription:      sarifText{Text: d.Rationale},
		Help:                 sarifText{Text: txt.String(), Markdown: md.String()},
		DefaultConfiguration: sarifConfig{Level: sarifLevel(d.Severity)},
	}
	if len(d.Sources) > 0 {
		r.HelpURI = d.Sources[0].URL
	}
	return r
}

// sarifRuleName is the ID in PascalCase ("WindowShorterThanRetryChain"),
// the form SARIF viewers show as the rule's name.
func sarifRuleName(id string) string {
	var b strings.Builder
	for _, part := range strings.FieldsFunc(id, func(r rune) bool { return r == '/' || r == '-' }) {
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}

func encodeSARIF(w io.Writer, r Report) error {
	tool := r.Tool
	if tool == "" {
		tool = "retryspec"
	}
	drv := sarifDriver{Name: tool, Version: r.Version, InformationURI: "https://github.com/retryspec/retryspec", Rules: []sarifRule{}}
	index := map[string]int{}
	for _, d := range r.Rules {
		if _, dup := index[d.ID]; dup {
			continue
		}
		index[d.ID] = len(drv.Rules)
		drv.Rules = append(drv.Rules, sarifRuleOf(d))
	}
	results := []sarifResult{}
	for _, f := range r.Findings {
		msg := f.Message
		if f.Fix != "" {
			msg += "\nFix: " + f.Fix
		}
		res := sarifResult{RuleID: f.Rule, Level: sarifLevel(f.Severity), Message: sarifText{Text: msg}}
		if i, ok := index[f.Rule]; ok {
			res.RuleIndex = &i
		}
		loc := sarifLocation{PhysicalLocation: sarifPhysical{ArtifactLocation: sarifArtifact{URI: artifactURI(f.File)}}}
		if f.Line > 0 {
			reg := &sarifRegion{StartLine: f.Line, StartColumn: max(f.Column, 1)}
			if f.EndColumn > f.Column {
				reg.EndColumn = f.EndColumn
			}
			loc.PhysicalLocation.Region = reg
		}
		if f.Path != "" {
			loc.LogicalLocations = []sarifLogical{{FullyQualifiedName: f.Path, Kind: "member"}}
		}
		res.Locations = []sarifLocation{loc}
		if f.Waived {
			res.Suppressions = []sarifSuppression{{Kind: "inSource", Justification: f.WaivedBecause}}
		}
		if f.Fix != "" {
			res.Properties = map[string]any{"fix": f.Fix}
		}
		results = append(results, res)
	}
	log := sarifLog{
		Schema:  "https://json.schemastore.org/sarif-2.1.0.json",
		Version: "2.1.0",
		Runs:    []sarifRun{{Tool: sarifTool{Driver: drv}, Results: results, ColumnKind: "unicodeCodePoints"}},
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(log)
}
