package snippets

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/retryspec/retryspec/contract"
)

// Short renders the short form of a language's snippet for the Retrying
// page: the library call (or, without a library, the settings and the
// call) with the contract's figures, about ten lines a reader copies. The
// complete program behind it (Render) is the tested code; the short form
// names that program's functions and uses its figures, so the two agree.
// Contract strings are quoted with the language's own quoting function.
func Short(c *contract.Contract, lang string) ([]byte, error) {
	p, err := NewPolicy(c)
	if err != nil {
		return nil, err
	}
	l, ok := LanguageNamed(lang)
	if !ok {
		return nil, fmt.Errorf("no snippet language %q; the languages are %s", lang, strings.Join(LanguageNames(), ", "))
	}
	retried, also := retriedText(p)
	// The example key: the contract's recommended derivation when it
	// gives one, else a stand-in for the caller's own operation id.
	example := "order-1234"
	for _, d := range c.Idempotency.Derivation {
		if d.Example != "" {
			example = d.Example
			break
		}
	}
	jitter := p.Jitter + " jitter"
	var b strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	secs := func(ms int64) string { return strconv.FormatFloat(float64(ms)/1000, 'f', -1, 64) }
	mult := strconv.FormatFloat(p.Multiplier, 'f', -1, 64)
	if !strings.Contains(mult, ".") {
		mult += ".0"
	}
	switch l.Name {
	case "python":
		line(`# pip install "tenacity>=8.3"; should_retry, wait and log_retry: see Full program`)
		if p.Jitter == "full" {
			line(`backoff = wait_random_exponential(multiplier=%s, max=%s, exp_base=%s)  # full jitter`, secs(Millis(p.Base)), secs(Millis(p.Cap)), mult)
		}
		line(`# Retries %s.`, retried)
		line(`retrying = Retrying(`)
		line(`    retry=retry_if_exception(should_retry),`)
		line(`    wait=wait,  # the server's Retry-After, else %s`, jitter)
		line(`    stop=stop_after_attempt(%d) | stop_before_delay(%s),`, p.MaxAttempts, secs(Millis(p.MaxElapsed)))
		line(`    before_sleep=log_retry,  # attempt number, error, next wait`)
		line(`    reraise=True,`)
		line(`)`)
		line(`# One key per logical request, reused on every attempt.`)
		line(`status, body = post_with_retries({"amount": 1000}, key=%s)`, PythonString(example))
	case "node", "typescript":
		line(`// Node 18+, no npm package: postWithRetries is in Full program.`)
		line(`const RETRY_STATUSES = new Set([%s]); // %s`, ints(p.Statuses), also)
		line(`const BASE_MS = %d, CAP_MS = %d, MULTIPLIER = %s; // %s`, Millis(p.Base), Millis(p.Cap), mult, jitter)
		line(`const MAX_ATTEMPTS = %d; // including the first`, p.MaxAttempts)
		line(`const MAX_ELAPSED_MS = %d; // one deadline for the whole loop`, Millis(p.MaxElapsed))
		line(`const ATTEMPT_TIMEOUT_MS = %d; // per attempt, inside the deadline`, Millis(p.AttemptTimeout))
		line(``)
		line(`// One key per logical request, reused on every attempt.`)
		line(`const { status, body } = await postWithRetries({ amount: 1000 }, %s);`, JSString(example))
	case "go":
		line(`// Standard library only: postWithRetries is in Full program.`)
		line(`const (`)
		line(`	base           = %d * time.Millisecond // %s, multiplier %s`, Millis(p.Base), jitter, mult)
		line(`	backoffCap     = %d * time.Millisecond`, Millis(p.Cap))
		line(`	maxAttempts    = %d // including the first`, p.MaxAttempts)
		line(`	maxElapsed     = %d * time.Millisecond // one deadline for the whole loop`, Millis(p.MaxElapsed))
		line(`	attemptTimeout = %d * time.Millisecond // per attempt, inside the deadline`, Millis(p.AttemptTimeout))
		line(`)`)
		line(``)
		line(`// One key per logical request, reused on every attempt.`)
		line(`status, body, err := postWithRetries(ctx, map[string]any{"amount": 1000}, %s)`, GoString(example))
	case "java":
		line(`// resilience4j-retry 2.x; classify and Plan (%s, Retry-After): Full program.`, jitter)
		line(`// Retries %s.`, retried)
		line(`RetryConfig config = RetryConfig.<HttpResponse<String>>custom()`)
		line(`        .maxAttempts(%d) // and a %d ms overall deadline, kept by Plan`, p.MaxAttempts, Millis(p.MaxElapsed))
		line(`        .retryOnResult(response -> plan.retry(classify(response)))`)
		line(`        .retryOnException(error -> plan.retry(classify(error, plan.hasKey)))`)
		line(`        .intervalBiFunction(plan) // base %d ms, cap %d ms, multiplier %s`, Millis(p.Base), Millis(p.Cap), mult)
		line(`        .failAfterMaxAttempts(false)`)
		line(`        .build();`)
		line(`Retry retry = Retry.of("api", config);`)
		line(`retry.getEventPublisher().onRetry(event -> log(event)); // attempt, error, next wait`)
	case "ruby":
		line(`# Standard library only: post_with_retries is in Full program.`)
		line(`RETRY_STATUSES = [%s].freeze # %s`, ints(p.Statuses), also)
		line(`BASE = %s; CAP = %s; MULTIPLIER = %s # seconds; %s`, secs(Millis(p.Base)), secs(Millis(p.Cap)), mult, jitter)
		line(`MAX_ATTEMPTS = %d # including the first`, p.MaxAttempts)
		line(`MAX_ELAPSED = %s # seconds: one deadline for the whole loop`, secs(Millis(p.MaxElapsed)))
		line(`ATTEMPT_TIMEOUT = %s # seconds per attempt, inside the deadline`, secs(Millis(p.AttemptTimeout)))
		line(``)
		line(`# One key per logical request, reused on every attempt.`)
		line(`response = post_with_retries({ amount: 1000 }, %s)`, RubyString(example))
	case "curl":
		line(`# POSIX sh around curl; the loop is in Full program.`)
		line(`RETRY_STATUSES=' %s ' # %s`, strings.ReplaceAll(ints(p.Statuses), ", ", " "), also)
		line(`BASE_MS=%d CAP_MS=%d MULTIPLIER=%s # %s`, Millis(p.Base), Millis(p.Cap), mult, jitter)
		line(`MAX_ATTEMPTS=%d # including the first`, p.MaxAttempts)
		line(`MAX_ELAPSED_MS=%d # one deadline for the whole loop`, Millis(p.MaxElapsed))
		line(`ATTEMPT_TIMEOUT_MS=%d # per attempt: curl --max-time`, Millis(p.AttemptTimeout))
		line(``)
		line(`# One key per logical request, reused on every attempt.`)
		line(`sh snippet.sh %s`, ShellQuote(example))
	default:
		return nil, nil
	}
	return []byte(b.String()), nil
}

// retriedText says what the allowlist retries, for a comment: all of it,
// and what it adds to the list of statuses.
func retriedText(p Policy) (all, also string) {
	var parts, extra []string
	if len(p.Statuses) > 0 {
		parts = append(parts, ints(p.Statuses))
	}
	for _, c := range p.StatusClasses {
		extra = append(extra, strconv.Itoa(c)+"xx")
	}
	if p.RetryTimeout || p.RetryReset || p.RetryRefused {
		extra = append(extra, "connection errors")
	}
	all = strings.Join(append(parts, extra...), ", ")
	also = "and " + strings.Join(extra, ", ")
	if len(extra) == 0 {
		also = "retried normally"
	}
	if len(p.Cautious) > 0 {
		all += "; " + ints(p.Cautious) + " at most once"
		also += "; " + ints(p.Cautious) + " at most once"
	}
	return all, also
}

func ints(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}
