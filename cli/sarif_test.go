package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/retryspec/retryspec/cli"
	"github.com/retryspec/retryspec/internal/testenv"
)

// TestCheckSARIFIsValid validates real `check --format sarif` output, with
// the whole catalog's rule metadata and a waived finding, against the
// official OASIS SARIF 2.1.0 schema that .ci/install-core fetches.
func TestCheckSARIFIsValid(t *testing.T) {
	dir := os.Getenv("RETRYSPEC_CACHE")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".cache", "retryspec")
	}
	path := filepath.Join(dir, "sarif-schema-2.1.0.json")
	data, err := os.ReadFile(path)
	if err != nil {
		testenv.Missing(t, "the SARIF 2.1.0 schema at "+path+" (run .ci/install-core)")
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("sarif.json", doc); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile("sarif.json")
	if err != nil {
		t.Fatal(err)
	}
	root := testenv.RepoRoot(t)
	for _, contract := range []string{
		filepath.Join(root, "testdata", "rules", "endpoint", "unsafe-without-key", "bad.yaml"),
		filepath.Join(root, "testdata", "rules", "lint", "unknown-waiver", "good.yaml"), // a waived finding
		filepath.Join(root, "examples", "payouts", "retryspec.yaml"),                    // no findings
	} {
		sys, out, errOut := cli.TestIO()
		cli.Main([]string{"check", "-c", contract, "--format", "sarif"}, sys)
		inst, err := jsonschema.UnmarshalJSON(out)
		if err != nil {
			t.Fatalf("%s: %v\n%s", contract, err, errOut.String())
		}
		if err := schema.Validate(inst); err != nil {
			t.Errorf("%s: invalid SARIF: %v", contract, err)
		}
	}
}
