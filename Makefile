.PHONY: test unit fuzz gobench site

# pipefail: the test summariser sits at the end of a pipe and must not hide
# go test's exit status.
SHELL := bash
.SHELLFLAGS := -o pipefail -c

# Every test: static checks (go vet, gofmt, staticcheck), the whole suite under the race detector, each
# fuzz target briefly, and every Go benchmark once so none can rot. Ends
# with the list of skipped tests and benchmarks (go test hides skips
# without -v). The unit tests and the benchmarks run beside a throwaway
# PostgreSQL and MariaDB on loopback (.ci/with-databases) when they are
# installed. .ci/run installs
# the runtimes and databases first, then runs exactly this.
test:
	@skips=$$(mktemp); status=0; \
	bash .ci/with-databases bash -o pipefail -c \
	  "$(MAKE) --no-print-directory unit SKIPS=$$skips && \
	   $(MAKE) --no-print-directory fuzz && \
	   $(MAKE) --no-print-directory gobench SKIPS=$$skips" || status=$$?; \
	go run ./internal/testsummary -report $$skips; rm -f $$skips; exit $$status

# SKIPS=FILE collects the skips for `test` to print at the end; without it
# each target prints its own.
SUMMARY = go run ./internal/testsummary $(if $(SKIPS),-skips $(SKIPS))

unit:
	go vet ./...
	bash .ci/staticcheck $(SKIPS)
	@test -z "$$(gofmt -l .)" || (gofmt -l .; echo "gofmt: the files above are not formatted"; exit 1)
	go test -race -timeout 60m -json ./... | $(SUMMARY)

# FUZZTIME per target (default 10s); crashers land in testdata/fuzz/.
fuzz:
	bash .ci/fuzz

gobench:
	bash bench/gobench -json | $(SUMMARY)

# Build the docs site from the bundled example into ./_site.
site:
	go run ./cmd/retryspec build -c examples/payouts/retryspec.yaml --out _site
