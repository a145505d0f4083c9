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

// In HTML the mark may sit before an element that opens the quote: a line
// of tags only holds no prose and is passed over, as a blank line is.
func TestSuppressionSkipsTagOnlyLines(t *testing.T) {
	src := "<!-- retryspec-disable-next-line copy/exactly-once -- quoted as an example -->\n<blockquote>\n<p>Every payout is processed exactly once.</p>\n</blockquote>\n"
	fs := LintSource(nil, "rule.html", []byte(src))
	if len(fs) != 1 || fs[0].Rule != RuleExactlyOnce || !fs[0].Waived || fs[0].Line != 3 {
		t.Errorf("want the quote on line 3 waived, got %+v", fs)
	}
	// In Markdown the same lines are prose-free only when they are tags.
	md := "[//]: # (retryspec-disable-next-line copy/exactly-once -- quoted)\n<div>\n\nEvery payout is processed exactly once.\n"
	if fs := LintSource(nil, "rule.md", []byte(md)); len(fs) != 1 || !fs[0].Waived {
		t.Errorf("markdown: want the quote waived, got %+v", fs)
	}
}
