// Package schema holds the contract's JSON Schema (draft 2020-12), for
// editors and `retryspec schema`. The loader in package contract is the
// authority; the schema mirrors it, and its tests keep the two in step:
// every example and testdata contract the loader accepts validates, and
// every invalid one fails both.
package schema

import _ "embed"

//go:embed retryspec.schema.json
var schemaJSON []byte

// JSON returns the schema document. The slice is shared; do not modify it.
func JSON() []byte { return schemaJSON }
