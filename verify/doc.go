// Package verify runs the contract's gates against a running HTTP API
// (docs/verify.md): it loads a plan with positions, sends
// real requests (the concurrency gate on warm connections released by a
// barrier), counts effects, hosts the external-call stub, starts, kills and
// restarts the server for the crash-recovery gate, and reports each gate of
// each operation, with findings that point at the contract line a failure
// breaks and a curl reproduction.
//
// It imports contract, contract/rules and findings; it never reads flags,
// the process environment (the caller passes Getenv) or os.Stdout.
package verify
