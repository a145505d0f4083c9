package openapi

import (
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestRepeatabilityAdditions (issue 32 items 2 and 4): with a first-sent
// window and a result header, every keyed operation declares the
// first-sent header parameter, a 412 too-old response without a code, and
// the result header with the value contract.ResultValue gives each answer:
// accepted on successes and the in-flight conflict, rejected on the others.
func TestRepeatabilityAdditions(t *testing.T) {
	c, merged := mergedSmall(t,
		[2]string{"  after_window: new-request\n", "  after_window: new-request\n  first_sent: { header: Repeatability-First-Sent, window: 5m }\n  result_header: { name: Repeatability-Result }\n"},
		[2]string{"  conflicts:\n", "  conflicts:\n    too_old: { status: 412, code: none }\n"})
	if !c.Idempotency.FirstSent.Set() {
		t.Fatal("the edited contract has no first-sent window")
	}
	type header struct {
		Schema struct {
			Enum []string `yaml:"enum"`
		} `yaml:"schema"`
	}
	type operation struct {
		Parameters []struct {
			Name string `yaml:"name"`
			In   string `yaml:"in"`
		} `yaml:"parameters"`
		Responses map[string]struct {
			Ref     string            `yaml:"$ref"`
			Headers map[string]header `yaml:"headers"`
			Content map[string]struct {
				Examples map[string]struct {
					Value map[string]any `yaml:"value"`
				} `yaml:"examples"`
			} `yaml:"content"`
		} `yaml:"responses"`
		XIdempotency struct {
			FirstSent struct {
				Header string `yaml:"header"`
				Window string `yaml:"window"`
			} `yaml:"first-sent"`
			ResultHeader struct {
				Name string `yaml:"name"`
			} `yaml:"result-header"`
			Conflicts map[string]struct {
				Status int `yaml:"status"`
			} `yaml:"conflicts"`
		} `yaml:"x-idempotency"`
	}
	// Decoding into plain maps refuses a key declared twice (two
	// parameters lists on an operation that had none).
	var plain map[string]any
	if err := yaml.Unmarshal(merged, &plain); err != nil {
		t.Fatalf("merged spec: %v", err)
	}
	var doc struct {
		Paths map[string]map[string]yaml.Node `yaml:"paths"`
	}
	if err := yaml.Unmarshal(merged, &doc); err != nil {
		t.Fatal(err)
	}
	keyed, successes := 0, 0
	for path, ops := range doc.Paths {
		for method, node := range ops {
			var op operation
			if method == "parameters" || node.Decode(&op) != nil || op.XIdempotency.ResultHeader.Name == "" {
				continue
			}
			keyed++
			where := method + " " + path
			found := false
			for _, p := range op.Parameters {
				found = found || (p.In == "header" && p.Name == "Repeatability-First-Sent")
			}
			if !found {
				t.Errorf("%s: no Repeatability-First-Sent header parameter", where)
			}
			if x := op.XIdempotency; x.FirstSent.Header != "Repeatability-First-Sent" || x.FirstSent.Window != "5m" || x.Conflicts["too-old"].Status != 412 {
				t.Errorf("%s: x-idempotency %+v", where, x)
			}
			tooOld, ok := op.Responses["412"]
			if !ok {
				t.Errorf("%s: no 412 too-old response", where)
				continue
			}
			for _, ct := range tooOld.Content {
				for name, ex := range ct.Examples {
					if _, ok := ex.Value["code"]; ok {
						t.Errorf("%s: the 412 example %s carries a code, but too_old has none", where, name)
					}
				}
			}
			for status, r := range op.Responses {
				got := r.Headers["Repeatability-Result"].Schema.Enum
				var want []string
				switch {
				case r.Ref != "" || (!strings.HasPrefix(status, "2") && len(r.Content) == 0):
					continue // a shared component, or a response the spec already declared
				case strings.HasPrefix(status, "2"):
					successes++
					want = []string{"accepted"}
				case status == "412" || status == "400":
					want = []string{"rejected"}
				case status == "409": // payload mismatch and in flight share it here
					want = []string{"rejected", "accepted"}
				default:
					continue
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s %s: Repeatability-Result enum %v, want %v", where, status, got, want)
				}
			}
		}
	}
	if keyed == 0 || successes == 0 {
		t.Fatalf("%d keyed operations, %d success responses checked", keyed, successes)
	}
}
