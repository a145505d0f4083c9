.PHONY: test site
# Every test. .ci/run installs the runtimes first, then runs this.
test:
	go vet ./...
	test -z "$$(gofmt -l .)" || (gofmt -l .; echo "gofmt: files above are not formatted"; exit 1)
	go test ./...

# Build the docs site from the bundled example.
site:
	go run ./cmd/retryspec build -c examples/payouts/retryspec.yaml --out _site
