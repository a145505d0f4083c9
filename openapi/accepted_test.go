package openapi

import (
	"encoding/json"
	"reflect"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/retryspec/retryspec/contract"
)

// TestAcceptedInFlightResponse: under in_flight.response: accepted the
// additions declare what the middleware sends a copy in flight: 202 with
// the body contract.Reply renders, not the in-flight 409; the 202 carries
// no replay header, and x-idempotency gives the in-flight status as 202.
func TestAcceptedInFlightResponse(t *testing.T) {
	c, merged := mergedSmall(t, [2]string{"    response: conflict\n", "    response: accepted\n"})
	type operation struct {
		Responses map[string]struct {
			Headers map[string]any `yaml:"headers"`
			Content map[string]struct {
				Examples map[string]struct {
					Value any `yaml:"value"`
				} `yaml:"examples"`
			} `yaml:"content"`
		} `yaml:"responses"`
		XIdempotency struct {
			Conflicts map[string]struct {
				Status int `yaml:"status"`
			} `yaml:"conflicts"`
		} `yaml:"x-idempotency"`
	}
	var doc struct {
		Paths map[string]map[string]yaml.Node `yaml:"paths"`
	}
	if err := yaml.Unmarshal(merged, &doc); err != nil {
		t.Fatal(err)
	}
	rep := c.Reply(contract.ReplyInFlightAccepted)
	var want any
	if err := json.Unmarshal(rep.Bytes(), &want); err != nil {
		t.Fatal(err)
	}
	code := c.Idempotency.Conflicts.InFlight.Code
	seen := 0
	for path, ops := range doc.Paths {
		for method, node := range ops {
			var op operation
			if method == "parameters" || node.Decode(&op) != nil {
				continue
			}
			r, ok := op.Responses["202"]
			if !ok {
				continue
			}
			seen++
			got := r.Content[rep.ContentType].Examples[code].Value
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s %s: the 202's example is %s, the middleware sends %s", method, path, got, want)
			}
			if _, ok := r.Headers[c.Idempotency.ReplayHeader]; ok {
				t.Errorf("%s %s: the in-flight 202 declares the replay header %s", method, path, c.Idempotency.ReplayHeader)
			}
			if conflict, ok := op.Responses["409"]; ok {
				if _, ok := conflict.Content[rep.ContentType].Examples[code]; ok {
					t.Errorf("%s %s: the 409 still shows %s, which accepted mode never sends as a 409", method, path, code)
				}
			}
			if st := op.XIdempotency.Conflicts["in-flight"].Status; st != 202 {
				t.Errorf("%s %s: x-idempotency gives the in-flight status %d, not 202", method, path, st)
			}
		}
	}
	if seen == 0 {
		t.Fatal("no keyed operation got a 202 in-flight response")
	}
}
