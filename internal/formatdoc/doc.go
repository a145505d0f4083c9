// Package formatdoc holds no code, only the test that writes the contract
// format reference, docs/contract.md, from the sources it describes: the
// fields from the JSON Schema (contract/schema), the example from the
// starter contract, the finding shape from findings.Finding and the JSON
// encoder, the exit codes from the CLI and the rule table from the catalog
// (contract/rules). `go test ./internal/formatdoc -update` rewrites the
// file; a plain run fails when it is out of date, as a golden file does.
package formatdoc
