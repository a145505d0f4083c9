// Command retryspec lints an API's idempotency-key contract and client retry
// policy, and renders docs, OpenAPI extensions and tested snippets from it.
package main

import (
	"os"

	"github.com/retryspec/retryspec/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:], cli.SystemIO())) }
