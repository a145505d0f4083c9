package diff

import (
	"context"
	"errors"
	"strings"

	"github.com/retryspec/retryspec/contract"
)

// Revision is one commit that touched the contract file, with the changes
// it made to the contract's meaning. The Changelog page renders these.
type Revision struct {
	Commit  string // full hash
	Date    string // author date, ISO 8601, as recorded in the commit
	Author  string
	Subject string // first line of the commit message
	Path    string // the file's path at this commit, relative to the repository top
	// First is set on the revision that added the contract; its Changes
	// are the contract and endpoint additions Compare reports for a new file.
	First bool
	// Changes from the previous valid revision, worst first. Empty when the
	// commit only reformatted the file.
	Changes []Change
	// Invalid holds the load error when this revision does not parse (or the
	// commit deleted the file); the next revision is compared with the last
	// valid one.
	Invalid string
}

// Short is the abbreviated commit hash.
func (r Revision) Short() string {
	if len(r.Commit) > 7 {
		return r.Commit[:7]
	}
	return r.Commit
}

// History returns the revisions of the contract at path, newest first: one
// per commit that touched the file, following renames, each classified
// against the revision before it. Uncommitted edits are not included.
//
// A contract outside a git repository, or a machine without git, simply
// has no history: History returns nil and no error, and the Changelog page
// falls back to the acknowledgements the contract records.
func History(ctx context.Context, g Git, path string) ([]Revision, error) {
	top, rel, err := Repo(ctx, g, path)
	if errors.Is(err, ErrNotRepository) || errors.Is(err, ErrNoGit) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	const rs, us = "\x1e", "\x1f"
	out, err := g.Run(ctx, top, "log", "--follow", "--name-only",
		"--format="+rs+"%H"+us+"%aI"+us+"%an"+us+"%s", "--", rel)
	if err != nil {
		if strings.Contains(err.Error(), "does not have any commits") {
			return nil, nil
		}
		return nil, err
	}
	var revs []Revision
	for _, block := range strings.Split(string(out), rs) {
		if strings.TrimSpace(block) == "" {
			continue
		}
		head, files, _ := strings.Cut(block, "\n")
		f := strings.SplitN(head, us, 4)
		if len(f) != 4 {
			continue
		}
		r := Revision{Commit: f[0], Date: f[1], Author: f[2], Subject: f[3], Path: rel}
		for _, line := range strings.Split(files, "\n") {
			if line = strings.TrimSpace(line); line != "" {
				r.Path = line
				break
			}
		}
		revs = append(revs, r)
	}
	// git log lists newest first; compare oldest first.
	var prev *contract.Contract
	for i := len(revs) - 1; i >= 0; i-- {
		r := &revs[i]
		if !exists(ctx, g, top, r.Commit, r.Path) {
			r.Invalid = "the commit deleted " + r.Path
			continue
		}
		c, err := load(ctx, g, top, r.Commit, r.Path)
		if err != nil {
			r.Invalid = err.Error()
			continue
		}
		r.First = prev == nil
		r.Changes = Compare(prev, c)
		prev = c
	}
	return revs, nil
}
