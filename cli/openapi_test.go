package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOpenAPICommand(t *testing.T) {
	dir := t.TempDir()
	contractPath := filepath.Join("..", "openapi", "testdata", "contract.yaml")
	specSrc, err := os.ReadFile(filepath.Join("..", "openapi", "testdata", "small.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	spec := filepath.Join(dir, "spec.yaml")
	if err := os.WriteFile(spec, specSrc, 0o644); err != nil {
		t.Fatal(err)
	}
	merged, overlay := filepath.Join(dir, "merged.yaml"), filepath.Join(dir, "overlay.json")

	code, out, errs := runCLI(t, "openapi", "-c", contractPath, "--spec", spec, "--merged", merged, "--overlay", overlay)
	if code != ExitOK {
		t.Fatalf("exit %d: %s%s", code, out, errs)
	}
	for _, want := range []string{"reused", "POST /v1/refunds: header parameter Idempotency-Key is already declared", "wrote " + merged} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if b, err := os.ReadFile(overlay); err != nil || !bytes.HasPrefix(b, []byte("{\n  \"overlay\": \"1.0.0\"")) {
		t.Errorf("overlay.json is not a JSON overlay: %v %.60s", err, b)
	}

	// The input is never overwritten without --force.
	code, _, errs = runCLI(t, "openapi", "-c", contractPath, "--spec", spec, "--merged", spec)
	if code != ExitInput || !strings.Contains(errs, "--force") {
		t.Errorf("overwrite without --force: exit %d, %s", code, errs)
	}
	if b, _ := os.ReadFile(spec); !bytes.Equal(b, specSrc) {
		t.Error("the input spec was changed")
	}
	code, _, errs = runCLI(t, "openapi", "-c", contractPath, "--spec", spec, "--merged", spec, "--force")
	if code != ExitOK {
		t.Errorf("--force: exit %d, %s", code, errs)
	}

	// Usage and input errors are exit 2, with the file and line.
	if code, _, _ := runCLI(t, "openapi", "-c", contractPath, "--merged", merged); code != ExitInput {
		t.Errorf("missing --spec: exit %d", code)
	}
	if code, _, _ := runCLI(t, "openapi", "-c", contractPath, "--spec", spec); code != ExitInput {
		t.Errorf("no output flag: exit %d", code)
	}
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("openapi: 3.0.0\ninfo: {title: x, version: '1'}\npaths:\n  /a:\n    $ref: 'other.yaml#/paths/a'\n"), 0o644)
	code, _, errs = runCLI(t, "openapi", "-c", contractPath, "--spec", bad, "--merged", merged)
	if code != ExitInput || !strings.Contains(errs, "bad.yaml:5:11") || !strings.Contains(errs, "--allow-external-refs") {
		t.Errorf("external ref: exit %d, %s", code, errs)
	}

	// A contradiction is a finding: exit 1.
	contra := filepath.Join(dir, "retryspec.yaml")
	src, _ := os.ReadFile(contractPath)
	os.WriteFile(contra, bytes.Replace(src, []byte("max_key_length: 255"), []byte("max_key_length: 64"), 1), 0o644)
	code, _, errs = runCLI(t, "openapi", "-c", contra, "--spec", filepath.Join("..", "openapi", "testdata", "small.yaml"), "--overlay", filepath.Join(dir, "o.yaml"))
	if code != ExitFindings || !strings.Contains(errs, "openapi/contradicts-contract") || !strings.Contains(errs, "small.yaml:62:24") {
		t.Errorf("contradiction: exit %d, %s", code, errs)
	}
}

// TestOpenAPIWarnsOnUnclassified (issue 28): `openapi` names the spec's
// state-changing operations the contract does not classify, as `check
// --openapi` does, as warnings: the overlay is still written, exit 0.
func TestOpenAPIWarnsOnUnclassified(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("..", "openapi", "testdata", "small.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	spec := filepath.Join(dir, "spec.yaml")
	extra := "  /v1/cards/freeze:\n    post:\n      operationId: freezeCard\n      responses: {'200': {description: frozen}}\n"
	os.WriteFile(spec, bytes.Replace(src, []byte("  /v1/refunds:\n"), []byte(extra+"  /v1/refunds:\n"), 1), 0o644)
	contractPath := filepath.Join("..", "openapi", "testdata", "contract.yaml")
	overlay := filepath.Join(dir, "o.yaml")
	code, _, errs := runCLI(t, "openapi", "-c", contractPath, "--spec", spec, "--overlay", overlay)
	if code != 0 || !strings.Contains(errs, "POST /v1/cards/freeze") || !strings.Contains(errs, "warning") || !strings.Contains(errs, "endpoint/unclassified") {
		t.Errorf("openapi with an unclassified operation: exit %d, want 0 with a warning naming it\n%s", code, errs)
	}
	if _, err := os.Stat(overlay); err != nil {
		t.Errorf("the overlay was not written: %v", err)
	}
	_, checkOut, checkErrs := runCLI(t, "check", "-c", contractPath, "--openapi", spec)
	if !strings.Contains(checkOut+checkErrs, "POST /v1/cards/freeze") {
		t.Errorf("check --openapi does not name the operation either:\n%s", checkOut+checkErrs)
	}
}
