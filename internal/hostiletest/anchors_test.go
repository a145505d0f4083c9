package hostiletest

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/retryspec/retryspec/internal/linediff"
	"go.yaml.in/yaml/v3"
)

// anchoredSpec shares the keyed POST's responses with an unkeyed GET and
// the unsafe archive POST through a YAML anchor, and the GET's path
// parameters with the archive POST.
const anchoredSpec = `openapi: 3.0.3
info:
  title: Lumapay
  version: "1"
paths:
  /v1/transfers:
    post:
      operationId: createTransfer
      responses: &std
        "201":
          description: created
        "400":
          description: bad request
  /v1/transfers/{id}:
    get:
      operationId: getTransfer
      parameters: &idparams
        - name: id
          in: path
          required: true
          schema:
            type: string
      responses: *std
  /v1/reports/{id}/archive:
    post:
      operationId: archiveReport
      parameters: *idparams
      responses: *std
`

// TestMergedSpecLeavesSharedAnchorsAlone: `openapi --merged` on a spec
// whose operations share YAML anchors changes no operation outside the
// plan (read back with aliases expanded, GET /v1/transfers/{id} is the
// same as in the input, the archive POST gains only x-idempotency), and
// the keyed POST that defines the shared responses still gets its 409s
// and replay header, on a copy of its own. On the original main the GET
// gained the 409 and the replay header through the anchor the keyed POST
// defines; then the additions were left out (issue 13 item 5). The line
// diff removes only the lines holding the anchor or alias that moved: the
// POST's `responses: &std` becomes `responses:`, and the GET's
// `responses: *std` becomes `responses: &std` followed by a copy.
func TestMergedSpecLeavesSharedAnchorsAlone(t *testing.T) {
	if placeholder(t, "openapi") {
		t.Skip("SKIPPED: openapi is not implemented on this branch yet")
	}
	sb := newSandbox(t)
	mustWrite(t, filepath.Join(sb.work, "anchors.yaml"), []byte(anchoredSpec))
	r := run(t, sb, 0, "openapi", "-c", "retryspec.yaml", "--spec", "anchors.yaml", "--merged", "merged.yaml")
	checkNoCrash(t, "openapi --merged", r)
	if r.code != 0 {
		t.Fatalf("openapi --merged: exit %d\n%s", r.code, r.stderr)
	}
	merged := readFile(t, filepath.Join(sb.work, "merged.yaml"))
	if !strings.Contains(r.stdout+r.stderr, "shared through a YAML anchor") {
		t.Errorf("the run does not say the shared responses were copied:\n%s%s", r.stdout, r.stderr)
	}

	// Outside the plan: GET /v1/transfers/{id} (the payouts contract keys
	// POST /v1/transfers and marks the archive POST unsafe).
	in, out := decodeSpec(t, anchoredSpec), decodeSpec(t, merged)
	for _, op := range [][2]string{{"/v1/transfers/{id}", "get"}, {"/v1/reports/{id}/archive", "post"}} {
		after := operation(out, op)
		if op[1] == "post" {
			if after["x-idempotency"] == nil {
				t.Errorf("the unsafe archive POST lacks x-idempotency")
			}
			delete(after, "x-idempotency")
		}
		if d := cmp.Diff(operation(in, op), after); d != "" {
			t.Errorf("%s %s changed in the merged spec (-input +merged):\n%s", op[1], op[0], d)
		}
	}
	// Inside the plan, everything is added, the shared responses too.
	post := operation(out, [2]string{"/v1/transfers", "post"})
	responses, _ := post["responses"].(map[string]any)
	created, _ := responses["201"].(map[string]any)
	if post["x-idempotency"] == nil || post["parameters"] == nil || responses["409"] == nil || created["headers"] == nil {
		t.Errorf("the keyed POST lacks x-idempotency, the key header, the 409 or the replay header: %v", post)
	}

	// Only the anchor's and its first alias's lines change; every other
	// input line is in the output, in order.
	changed := linediff.Removed(strings.Split(anchoredSpec, "\n"), strings.Split(merged, "\n"))
	if d := cmp.Diff([]string{"responses: &std", "responses: *std"}, changed); d != "" {
		t.Errorf("input lines changed (-want +got):\n%s", d)
	}
}

func decodeSpec(t *testing.T, s string) map[string]any {
	t.Helper()
	var v map[string]any
	if err := yaml.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("the spec does not parse: %v\n%s", err, s)
	}
	return v
}

func operation(spec map[string]any, op [2]string) map[string]any {
	paths, _ := spec["paths"].(map[string]any)
	item, _ := paths[op[0]].(map[string]any)
	o, _ := item[op[1]].(map[string]any)
	return o
}
