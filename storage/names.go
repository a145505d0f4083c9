package storage

import "fmt"

// StatementName names one of the statements Generate writes. It is a
// number, not a string, so that a statement can only be named by its
// constant: renaming one is a compile error wherever it is used.
type StatementName int

const (
	_ StatementName = iota
	Claim
	Lookup
	SetSerializable // the row-lock claim's first statement (PostgreSQL, MySQL)
	BeginImmediate  // the row-lock claim's first statement (SQLite)
	LockKey
	ClaimLookup
	ClaimLookupBatch
	ClaimBatch
	Takeover
	Checkpoint
	Complete
	CheckpointOrAbort
	CompleteOrAbort
	Release
	Expire
	Reap
	Stale
)

var statementNames = [...]string{
	Claim: "Claim", Lookup: "Lookup", SetSerializable: "SetSerializable", BeginImmediate: "BeginImmediate",
	LockKey: "LockKey", ClaimLookup: "ClaimLookup", ClaimLookupBatch: "ClaimLookupBatch", ClaimBatch: "ClaimBatch",
	Takeover: "Takeover", Checkpoint: "Checkpoint", Complete: "Complete", CheckpointOrAbort: "CheckpointOrAbort",
	CompleteOrAbort: "CompleteOrAbort", Release: "Release", Expire: "Expire", Reap: "Reap", Stale: "Stale",
}

// String is the name the rendered file gives the statement (`-- name: X`).
func (n StatementName) String() string {
	if n > 0 && int(n) < len(statementNames) {
		return statementNames[n]
	}
	return fmt.Sprintf("StatementName(%d)", int(n))
}

// parseStatementName reads a name back from a rendered file.
func parseStatementName(s string) (StatementName, bool) {
	for n, name := range statementNames {
		if name != "" && name == s {
			return StatementName(n), true
		}
	}
	return 0, false
}

// Kind is what running a statement returns, in the sqlc convention.
type Kind string

const (
	KindOne      Kind = ":one"      // at most one row
	KindMany     Kind = ":many"     // rows
	KindExecRows Kind = ":execrows" // the number of rows affected
	KindExec     Kind = ":exec"     // nothing
)
