// Package verify runs the contract's gates against a running HTTP API
// (docs/verify.md): it loads a plan with positions, sends
// real requests (the concurrency gate on warm connections released by a
// barrier), counts effects, hosts the external-call stub, starts, kills and
// restarts the server for the crash-recovery gate, and reports each gate of
// each operation, with findings that point at the contract line a failure
// breaks and a curl reproduction.
//
// The gates are rows of one table (Gates, in table.go): ID, contract path,
// help line, skip, run and dry-run functions; the runner, the dry run and
// the CLI's --only and --help read it, and a gate's prose is the rule
// catalog's entry under its ID. CONTRIBUTING.md says how to add one.
//
// It imports contract, contract/rules and findings; it never reads flags,
// the process environment (the caller passes Getenv) or os.Stdout.
package verify
