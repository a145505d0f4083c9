package copylint

import (
	"strings"
	"testing"
)

// The two mark forms agreed with the renderer: an HTML comment (HTML and
// Markdown) and, in Markdown and MDX, the link-reference comment
// "[//]: # (retryspec-disable-next-line RULES -- reason)", which CommonMark,
// MDX 3 and Docusaurus render as nothing.
func TestSuppressionMarkForms(t *testing.T) {
	claim := "We guarantee exactly-once delivery.\n"
	tests := []struct {
		name, src string
		waived    bool
		rules     []string // rules of the findings, in file order
	}{
		{"md-comment.md", "[//]: # (retryspec-disable-next-line copy/exactly-once -- quoting a vendor)\n" + claim, true, []string{RuleExactlyOnce}},
		{"md-comment-blank.md", "[//]: # (retryspec-disable-next-line copy/exactly-once -- quoting a vendor)\n\n" + claim, true, []string{RuleExactlyOnce}},
		{"md-comment-two.md", "[//]: # (retryspec-disable-next-line copy/exactly-once copy/absolute-guarantee -- a bad example)\nWe guarantee exactly-once delivery and you will never be charged twice.\n", true, []string{RuleExactlyOnce, RuleAbsoluteGuarantee}},
		{"mdx-comment.mdx", "[//]: # (retryspec-disable-next-line copy/exactly-once -- quoting a vendor)\n" + claim, true, []string{RuleExactlyOnce}},
		{"md-html-comment.md", "<!-- retryspec-disable-next-line copy/exactly-once -- quoting a vendor -->\n" + claim, true, []string{RuleExactlyOnce}},
		{"html-comment.html", "<!-- retryspec-disable-next-line copy/exactly-once -- quoting a vendor -->\n<p>" + claim + "</p>\n", true, []string{RuleExactlyOnce}},
		// Without a reason it waives nothing and says so.
		{"md-noreason.md", "[//]: # (retryspec-disable-next-line copy/exactly-once)\n" + claim, false, []string{RuleSuppressionNoReason, RuleExactlyOnce}},
		// Another rule named: the claim stands, the mark is unused.
		{"md-other.md", "[//]: # (retryspec-disable-next-line copy/standard-claim -- x)\n" + claim, false, []string{RuleUnusedSuppression, RuleExactlyOnce}},
		// Shown in a code block, the mark is an example, not a mark.
		{"md-code.md", "```\n[//]: # (retryspec-disable-next-line copy/exactly-once -- x)\n```\n" + claim, false, []string{RuleExactlyOnce}},
	}
	for _, tc := range tests {
		fs := LintSource(nil, tc.name, []byte(tc.src))
		var rules []string
		for _, f := range fs {
			rules = append(rules, f.Rule)
			if strings.HasPrefix(f.Rule, "copy/exactly") || f.Rule == RuleAbsoluteGuarantee {
				if f.Waived != tc.waived {
					t.Errorf("%s: %s waived=%v, want %v", tc.name, f.Rule, f.Waived, tc.waived)
				}
				if f.Waived && f.WaivedBecause == "" || strings.Contains(f.WaivedBecause, ")") {
					t.Errorf("%s: reason %q", tc.name, f.WaivedBecause)
				}
			}
		}
		if strings.Join(rules, " ") != strings.Join(tc.rules, " ") {
			t.Errorf("%s: rules %v, want %v", tc.name, rules, tc.rules)
		}
	}
}
