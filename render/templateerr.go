package render

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// TemplateError is a template that does not parse or fails on a page: the
// file it came from (the override's path when it is one), the line and
// column, and what is wrong, said once and in this project's terms rather
// than text/template's ("template: x:3: executing \"x\" at <.Nope>: can't
// evaluate field Nope in type *render.view").
type TemplateError struct {
	File         string
	Line, Column int
	Message      string
}

func (e *TemplateError) Error() string {
	loc := e.File
	if e.Line > 0 {
		loc = fmt.Sprintf("%s:%d", loc, e.Line)
		if e.Column > 0 {
			loc = fmt.Sprintf("%s:%d", loc, e.Column)
		}
	}
	return loc + ": template error: " + e.Message
}

var (
	// template: NAME:LINE:COL: executing "NAME" at <ACTION>: MESSAGE
	execErrRe = regexp.MustCompile(`^(?:html/)?template: (.+?):(\d+):(\d+): executing "[^"]*" at <([^>]*)>: (.*)$`)
	// template: NAME:LINE: MESSAGE
	parseErrRe   = regexp.MustCompile(`^(?:html/)?template: (.+?):(\d+): (.*)$`)
	fieldRe      = regexp.MustCompile(`^can't evaluate field (\w+) in type .*$`)
	funcRe       = regexp.MustCompile(`^function "(\w+)" not defined$`)
	unclosedRe   = regexp.MustCompile(`^unclosed action(?: started at .*)?$`)
	unclosedAtRe = regexp.MustCompile(`^unclosed action started at .*:(\d+)$`)
	callErrRe    = regexp.MustCompile(`^error calling (\w+): (.*)$`)
	nilPtrRe     = regexp.MustCompile(`^nil pointer evaluating .*?\.(\w+)$`)
)

// templateError rewrites an error of text/template or html/template into a
// *TemplateError; other errors pass through unchanged.
func templateError(err error) error {
	if err == nil {
		return nil
	}
	var te *TemplateError
	if errors.As(err, &te) {
		return err
	}
	msg := err.Error()
	if m := execErrRe.FindStringSubmatch(msg); m != nil {
		return &TemplateError{File: m[1], Line: atoi(m[2]), Column: atoi(m[3]), Message: execMessage(m[4], m[5])}
	}
	if m := parseErrRe.FindStringSubmatch(msg); m != nil {
		line := atoi(m[2])
		// An unclosed action is reported where the file ends; the line
		// to fix is where it starts.
		if u := unclosedAtRe.FindStringSubmatch(m[3]); u != nil {
			line = atoi(u[1])
		}
		return &TemplateError{File: m[1], Line: line, Message: parseMessage(m[3])}
	}
	return err
}

func execMessage(action, msg string) string {
	switch {
	case fieldRe.MatchString(msg):
		f := fieldRe.FindStringSubmatch(msg)[1]
		return fmt.Sprintf("%s: the page has no field %s here; the fields each page has are used in the built-in templates (retryspec templates export DIR)", action, f)
	case nilPtrRe.MatchString(msg):
		return fmt.Sprintf("%s: the value is absent on this page; test it first with {{if ...}}", action)
	case callErrRe.MatchString(msg):
		m := callErrRe.FindStringSubmatch(msg)
		return fmt.Sprintf("%s: %s refused the value: %s", action, m[1], m[2])
	}
	return action + ": " + msg
}

func parseMessage(msg string) string {
	switch {
	case unclosedRe.MatchString(msg):
		return "an action opened with {{ is not closed with }}"
	case funcRe.MatchString(msg):
		return fmt.Sprintf("there is no function %q; the escaping functions are %s", funcRe.FindStringSubmatch(msg)[1], strings.Join(escapers, ", "))
	}
	return msg
}

func atoi(s string) int {
	n := 0
	for _, r := range s {
		n = n*10 + int(r-'0')
	}
	return n
}
