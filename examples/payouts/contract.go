// Package payouts holds the payouts example: its contract (retryspec.yaml,
// embedded here so the reference server in ./server runs from any folder)
// and the reference server built on the idempotency middleware.
package payouts

import _ "embed"

// Contract is examples/payouts/retryspec.yaml.
//
//go:embed retryspec.yaml
var Contract []byte
