package main

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// contractHead is a sound contract without endpoints: every rule passes,
// so a run's cost is the work of checking, not of reporting problems.
const contractHead = `retryspec: 1
api:
  name: Benchpay
  base_url: https://api.benchpay.example
idempotency:
  header: Idempotency-Key
  header_value: plain
  key_source: client
  max_key_length: 255
  scope: account
  derivation:
    - kind: event-derived
      example: "order-{your_order_id}"
    - kind: uuid-reused
  fingerprint: sha256-body
  claim:
    store: postgres
    mechanism: unique-constraint
    same_transaction: true
  in_flight:
    response: conflict
    lock_timeout: 2m
    takeover: conditional-update
  conflicts:
    payload_mismatch: { status: 409, code: invalid_idempotent_request }
    in_flight:        { status: 409, code: concurrent_idempotent_requests }
    missing_key:      { status: 400, code: missing_idempotency_key }
  stored_failures: replay
  stored_response: verbatim
  replay_window: 24h
  reaper_after: 72h
  longest_retry_chain:
    duration: 6h
    because: "client retries plus scheduled re-submits"
  after_window: new-request
  recovery:
    completer: true
    reaper: true
retry:
  statuses: [429, 502, 503, 504]
  cautious_statuses: [500]
  connection_errors: [timeout, reset, refused]
  honor_retry_after: true
  backoff:
    jitter: full
    base: 1s
    cap: 30s
    multiplier: 2
  max_attempts: 3
  max_elapsed: 60s
  attempt_timeout:
    p99: 800ms
    factor: 2.5
  deadline: overall
  propagate_deadline: true
  log_retries: true
  budget:
    kind: token-bucket
    capacity: 500
    transient_cost: 14
    throttle_cost: 5
    success_refund: 1
  stacking: [retry, circuit-breaker, rate-limiter, bulkhead]
`

// Op is one operation of an API: "POST" and "/v1/orders/{id}".
type Op struct {
	Method string
	Path   string
}

// classify gives an operation the effect and key a reviewer would: keys on
// every non-idempotent write, none on reads and deletes.
func classify(op Op) (effect, key string) {
	switch op.Method {
	case "GET", "HEAD", "OPTIONS":
		return "read", "none"
	case "DELETE":
		return "delete", "none"
	case "PUT":
		return "replace", "optional"
	case "PATCH":
		return "replace", "optional"
	}
	if strings.HasSuffix(op.Path, "}") {
		return "replace", "optional" // POST /things/{id}: Stripe's update
	}
	return "create", "required"
}

// ContractYAML is a sound contract classifying ops.
func ContractYAML(ops []Op) []byte {
	var b strings.Builder
	b.WriteString(contractHead)
	b.WriteString("endpoints:\n")
	for _, op := range ops {
		effect, key := classify(op)
		fmt.Fprintf(&b, "  - operation: %s %s\n    effect: %s\n    key: %s\n", op.Method, op.Path, effect, key)
		if key != "none" {
			// A keyed write must say whether it calls other systems.
			b.WriteString("    external_calls: []\n")
		}
	}
	return []byte(b.String())
}

// SyntheticOps is n operations over n/4 resources, the shape of a typical
// REST API: create, read, delete and one action per resource.
func SyntheticOps(n int) []Op {
	ops := make([]Op, 0, n)
	for i := 0; len(ops) < n; i++ {
		base := fmt.Sprintf("/v1/resource%d", i)
		for _, op := range []Op{
			{"POST", base},
			{"GET", base + "/{id}"},
			{"DELETE", base + "/{id}"},
			{"POST", base + "/{id}/cancel"},
		} {
			if len(ops) < n {
				ops = append(ops, op)
			}
		}
	}
	return ops
}

// SyntheticSpec is an OpenAPI 3.0 document with exactly ops, so a contract
// of the same ops has no drift. Path templates declare their parameters at
// path level, as a valid spec must.
func SyntheticSpec(ops []Op) ([]byte, error) {
	type schema struct {
		Type string `json:"type"`
	}
	type param struct {
		Name     string `json:"name"`
		In       string `json:"in"`
		Required bool   `json:"required"`
		Schema   schema `json:"schema"`
	}
	type response struct {
		Description string `json:"description"`
	}
	type operation struct {
		OperationID string              `json:"operationId"`
		Responses   map[string]response `json:"responses"`
	}
	paths := map[string]map[string]any{}
	for i, op := range ops {
		item := paths[op.Path]
		if item == nil {
			item = map[string]any{}
			var params []param
			for _, m := range pathParam.FindAllStringSubmatch(op.Path, -1) {
				params = append(params, param{Name: m[1], In: "path", Required: true, Schema: schema{"string"}})
			}
			if len(params) > 0 {
				item["parameters"] = params
			}
			paths[op.Path] = item
		}
		item[strings.ToLower(op.Method)] = operation{
			OperationID: fmt.Sprintf("op%d", i),
			Responses:   map[string]response{"200": {Description: "OK"}},
		}
	}
	doc := map[string]any{
		"openapi": "3.0.3",
		"info":    map[string]string{"title": "Benchpay", "version": "1.0.0"},
		"paths":   paths,
	}
	return json.MarshalIndent(doc, "", "  ")
}

var pathParam = regexp.MustCompile(`\{([^{}]+)\}`)

var httpMethods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

func isMethod(k string) bool {
	for _, m := range httpMethods {
		if k == m {
			return true
		}
	}
	return false
}

// loadSpecNode parses an OpenAPI file (YAML or JSON) keeping its order.
func loadSpecNode(path string) (*yaml.Node, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: not an OpenAPI document", path)
	}
	return &doc, nil
}

func mapValue(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// SpecOps lists the operations of a spec in file order, grouped by path.
func SpecOps(doc *yaml.Node) [][]Op {
	paths := mapValue(doc.Content[0], "paths")
	if paths == nil {
		return nil
	}
	var out [][]Op
	for i := 0; i+1 < len(paths.Content); i += 2 {
		p, item := paths.Content[i].Value, paths.Content[i+1]
		var ops []Op
		for j := 0; j+1 < len(item.Content); j += 2 {
			if k := item.Content[j].Value; isMethod(k) {
				ops = append(ops, Op{Method: strings.ToUpper(k), Path: p})
			}
		}
		out = append(out, ops)
	}
	return out
}

// TrimSpec keeps whole paths of the spec, in order, while their operations
// fit in n, and drops the other paths (components stay): a real spec with
// an n-operation surface that an n-endpoint contract classifies fully.
func TrimSpec(doc *yaml.Node, n int) ([]byte, []Op, error) {
	paths := mapValue(doc.Content[0], "paths")
	if paths == nil {
		return nil, nil, fmt.Errorf("the spec has no paths")
	}
	groups := SpecOps(doc)
	var kept []*yaml.Node
	var ops []Op
	for i, g := range groups {
		if len(g) == 0 || len(ops)+len(g) > n {
			continue
		}
		ops = append(ops, g...)
		kept = append(kept, paths.Content[2*i], paths.Content[2*i+1])
	}
	orig := paths.Content
	paths.Content = kept
	defer func() { paths.Content = orig }()
	out, err := yaml.Marshal(doc)
	return out, ops, err
}

// flatten joins grouped operations.
func flatten(groups [][]Op) []Op {
	var ops []Op
	for _, g := range groups {
		ops = append(ops, g...)
	}
	return ops
}
