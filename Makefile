.PHONY: test unit fuzz gobench site

# Every test: static checks, the whole suite under the race detector, each
# fuzz target briefly, and every Go benchmark once so none can rot.
# .ci/run installs the runtimes first, then runs exactly this.
test: unit fuzz gobench

unit:
	go vet ./...
	@test -z "$$(gofmt -l .)" || (gofmt -l .; echo "gofmt: the files above are not formatted"; exit 1)
	go test -race ./...

# FUZZTIME per target (default 10s); crashers land in testdata/fuzz/.
fuzz:
	bash .ci/fuzz

gobench:
	bash bench/gobench

# Build the docs site from the bundled example into ./_site.
site:
	go run ./cmd/retryspec build -c examples/payouts/retryspec.yaml --out _site
