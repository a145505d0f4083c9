.PHONY: test unit fuzz gobench site

# pipefail: the test summariser sits at the end of a pipe and must not hide
# go test's exit status.
SHELL := bash
.SHELLFLAGS := -o pipefail -c

# Every test: static checks (go vet, gofmt, staticcheck), the whole suite under the race detector (but nonRacePkgs, below), each
# fuzz target briefly, and every Go benchmark once so none can rot. Each
# step runs even when an earlier one failed. Ends with the list of skipped
# tests and benchmarks (go test hides skips without -v) and then, as the
# last lines, the failed tests and steps. The unit tests and the benchmarks
# run beside a throwaway PostgreSQL and MariaDB on loopback
# (.ci/with-databases) when they are installed. .ci/run installs
# the runtimes and databases first, then runs exactly this.
test:
	@skips=$$(mktemp); status=0; \
	bash .ci/with-databases bash -o pipefail -c \
	  "s=0; \
	   $(MAKE) --no-print-directory unit SKIPS=$$skips || s=1; \
	   $(MAKE) --no-print-directory fuzz SKIPS=$$skips || s=1; \
	   $(MAKE) --no-print-directory gobench SKIPS=$$skips || s=1; \
	   exit \$$s" || status=$$?; \
	go run ./internal/testsummary -report $$skips; rm -f $$skips; \
	if [ $$status -ne 0 ]; then echo "make test: FAILED (exit $$status)"; fi; exit $$status

# SKIPS=FILE collects the skips and failures for `test` to print at the
# end; without it each target prints its own.
SUMMARY = go run ./internal/testsummary $(if $(SKIPS),-skips $(SKIPS))
# $(call failed,STEP) records that STEP failed (for `test`'s last lines)
# and fails the recipe line.
failed = { $(if $(SKIPS),go run ./internal/testsummary -skips $(SKIPS) -fail "$(1)";) exit 1; }

# nonRaceTests are the tests of nonRaceTestPkgs that skip under -race
# (testenv.SkipUnderRace: one goroutine's computation, where the detector
# finds nothing and costs many times the run) or do only part of their
# work under it (testenv.UnderRace: site's TestSitePassesItsOwnGate
# builds the examples there, every testdata contract without it). unit
# runs them on a line of their own without it.
nonRaceTests = ^(TestPrefilterHidesNothing|TestLearnedScreenHidesNothing|TestDurationSpansOnProse|TestGateAgreesWithPattern|TestScanGates|TestSplitGateAgrees|TestSitePassesItsOwnGate)$$
nonRaceTestPkgs = ./copylint ./site

# nonRacePkgs start no goroutine of their own: they measure the copy lint on
# labelled sets and train its learned reader, one sentence after another
# through copylint's single-file entry points, whose concurrency copylint's
# own tests cover under -race; the leave-one-out folds train side by side
# in internal/learnfold, whose test runs that under -race. The detector
# would multiply their CPU (BENCHMARKS.md, "CI time") and could find
# nothing; unit runs them whole without it.
# TestNonRacePackagesStartNoGoroutine (internal/layering) keeps them so.
nonRacePkgs = ./bench/copyfield ./internal/learngen
# racePkgs are the rest, the packages of slowFirst listed first and in
# its order: go test starts packages in the order given, and these take
# the longest, so starting them first leaves no long one for the end.
# verify and verify/client spend most of their time waiting on servers
# and windows, not on a core, so racePkgs run raceProcs at once: two
# beside the cores' count, which the others keep busy meanwhile.
slowFirst = /verify /verify/client /site /snippets/suite /internal/hostiletest /copylint /cli
racePkgs = "$$(go list ./... | grep -vxF $(foreach p,$(nonRacePkgs),-e github.com/retryspec/retryspec/$(patsubst ./%,%,$(p))) | awk -v first='$(slowFirst)' 'BEGIN {n = split(first, f, " ")} {for (i = 1; i <= n; i++) if ($$0 ~ (f[i] "$$")) {hit[i] = $$0; next}; rest = rest $$0 "\n"} END {for (i = 1; i <= n; i++) if (hit[i] != "") print hit[i]; printf "%s", rest}')"
raceProcs = $$(( $$(nproc) + 2 ))

# -count=1: `make test` runs every test, never a cached pass (a cached
# result proves nothing about this machine, its load or its services).
# The tests without -race run in the background beside the race run,
# niced so they take the cores only when the race run leaves them idle;
# their output is printed after the race run's, and both always run.
unit:
	go vet ./... || $(call failed,go vet ./...)
	bash .ci/staticcheck $(SKIPS) || $(call failed,staticcheck (bash .ci/staticcheck))
	@test -z "$$(gofmt -l .)" || (gofmt -l .; echo "gofmt: the files above are not formatted"; $(call failed,gofmt -l .))
	@nonrace=$$(mktemp); \
	echo "go test (without -race, in the background): $(nonRacePkgs), and $(nonRaceTests) of $(nonRaceTestPkgs)"; \
	( s=0; \
	  nice -n 10 go test -count=1 -timeout 60m -json $(nonRacePkgs) | $(SUMMARY) || s=1; \
	  nice -n 10 go test -count=1 -timeout 60m -run '$(nonRaceTests)' -json $(nonRaceTestPkgs) | $(SUMMARY) || s=1; \
	  exit $$s ) > $$nonrace 2>&1 & bg=$$!; \
	s=0; pkgs=$(racePkgs) && test -n "$$pkgs" && \
	echo "go test -race -p $(raceProcs): $$(echo $$pkgs | wc -w) packages" && \
	go test -race -count=1 -p $(raceProcs) -timeout 60m -json $$pkgs | $(SUMMARY) || s=1; \
	wait $$bg || s=1; \
	echo "== go test without -race"; cat $$nonrace; rm -f $$nonrace; exit $$s

# FUZZTIME per target (default 6s); crashers land in testdata/fuzz/.
fuzz:
	bash .ci/fuzz || $(call failed,fuzzing (bash .ci/fuzz; its log names the target))

gobench:
	bash bench/gobench -json | $(SUMMARY)

# Build the docs site from the bundled example into ./_site.
site:
	go run ./cmd/retryspec build -c examples/payouts/retryspec.yaml --out _site
