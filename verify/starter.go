package verify

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/retryspec/retryspec/contract"
)

// StarterPlan renders a commented starter plan for the contract: one entry
// per keyed endpoint, with the body from bodies (keyed by operation, from
// the OpenAPI examples) or a placeholder to replace. Strings are written as
// JSON strings, so no contract value can break the YAML.
func StarterPlan(c *contract.Contract, bodies map[string][]byte) []byte {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	var b strings.Builder
	b.WriteString("# retryspec verify plan: what `retryspec verify` sends to prove the running API keeps\n")
	fmt.Fprintf(&b, "# the contract in %s. It creates real effects: point it at a local or staging server.\n", c.File)
	b.WriteString("# Spec: docs/verify.md. Values in ${VAR} are read from the environment and never printed.\n\n")
	b.WriteString("base_url: http://127.0.0.1:8080   # ignored when server: below starts the server\n")
	b.WriteString("headers:\n  Authorization: \"Bearer ${API_TOKEN}\"\n")
	if c.Idempotency.Scope == contract.ScopeAccount {
		b.WriteString("# A second caller for the key-scope gate (verify/scope); remove to skip that gate.\n")
		b.WriteString("other_principal:\n  Authorization: \"Bearer ${OTHER_API_TOKEN}\"\n")
	}
	b.WriteString("concurrency: 16                  # requests the concurrency gate releases at one instant (up to 1024)\n")
	b.WriteString("operations:\n")
	n := 0
	for _, e := range c.Endpoints {
		if !e.Keyed() {
			continue
		}
		n++
		fmt.Fprintf(&b, "  %s:\n", q(e.Operation))
		if ps := contract.PathParams(e.Path); len(ps) > 0 {
			b.WriteString("    path: {")
			for i, p := range ps {
				if i > 0 {
					b.WriteString(", ")
				}
				fmt.Fprintf(&b, "%s: %s", q(p), q("REPLACE_ME"))
			}
			b.WriteString("}   # values for the path parameters\n")
		}
		if body, ok := bodies[e.Operation]; ok {
			fmt.Fprintf(&b, "    body: %s   # from the OpenAPI example\n", body)
		} else {
			b.WriteString("    body: {\"REPLACE_ME\": 1}   # a request body the server accepts\n")
		}
		b.WriteString("    # mismatch_body: {...}      # default: the body with its first number incremented\n")
		b.WriteString("    # How to count this operation's effects for one key (strongly advised: without it the\n")
		b.WriteString("    # gates judge responses only). {key} is the key under test; count is a JSON pointer.\n")
		b.WriteString("    # effects:\n")
		fmt.Fprintf(&b, "    #   request: %s\n", q("GET "+strings.SplitN(e.Path, "{", 2)[0]+"?idempotency_key={key}"))
		b.WriteString("    #   count: /count\n")
	}
	if n == 0 {
		b.WriteString("  {}   # the contract has no endpoint with key: required or optional\n")
	}
	b.WriteString("# Let verify start the server itself (needed by the crash-recovery gate): {addr} becomes a\n")
	b.WriteString("# free 127.0.0.1 port, and RETRYSPEC_EXTERNAL_URL points at verify's external-call stub.\n")
	b.WriteString("# server:\n#   command: [\"./bin/api\", \"--addr\", \"{addr}\"]\n#   ready: \"GET /healthz\"\n#   startup_timeout: 30s\n")
	return []byte(b.String())
}
