package stores_test

import (
	"testing"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/examples/payouts"
)

// payoutsContract is the example contract the store and benchmark tests
// run.
func payoutsContract(t testing.TB) *contract.Contract {
	t.Helper()
	c, err := contract.Parse("retryspec.yaml", payouts.Contract)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// body is a transfer request of the payouts contract.
const body = `{"amount":1000,"currency":"usd","destination":"acct_1"}`
