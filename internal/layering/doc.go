// Package layering holds no code, only the test that keeps the module's
// imports pointing one way: toward the contract model and the findings
// package, which import nothing of ours. Every package of the module has a
// row in its table (a new package fails the test until it gets one) naming
// the packages of ours it may import, and a few third-party and standard
// packages are reserved to one place each (cobra to the CLI, kin-openapi to
// openapi, database drivers to idempotency/stores). The package comments
// (doc.go) say the same in prose; change both together.
package layering
