// Package diff classes the differences between two revisions of a contract
// by what they mean for an integrator: breaking (a client written against the
// old contract misbehaves or is refused under the new one), notable (the old
// client keeps working, but the contract now offers or recommends something
// it may want to adopt) or compatible (nothing on the wire or in a client's
// behaviour changes: prose, tooling configuration).
//
// The classification is data: one Row per field of the model in table.go,
// each with an outcome per direction of change. Compare walks both models
// explicitly, so whitespace, comments, key order and the spelling of equal
// values (24h and 1d) are never changes. Endpoints are matched by method and
// path shape, not by their position in the list.
//
// Git access (Base, History) shells out to the git binary behind the Git
// interface. This package imports the contract model and the findings
// package (whose printer paints the text format) and nothing else of ours;
// it must not import the CLI or the renderers.
//
// Adding a field to the contract model: TestEveryModelFieldIsCompared fails
// until the field is flattened in contractFacts (or endpointFacts) and set in
// testdata/full.yaml; TestTableIsWellFormed and TestRows then ask for its
// Table row and one test case per outcome of that row.
package diff
