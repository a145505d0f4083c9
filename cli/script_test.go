package cli_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/retryspec/retryspec/cli"
	"github.com/retryspec/retryspec/internal/golden"
	"github.com/retryspec/retryspec/internal/testenv"
)

// TestMain lets the test binary act as the retryspec command inside
// scripts, so they run the real Main in a child process.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"retryspec": func() { os.Exit(cli.Main(os.Args[1:], cli.SystemIO())) },
	})
}

// TestScripts runs testdata/script/*.txtar: each command's output and exit
// codes. $EXAMPLES is the repository's examples folder; $TESTDATA its
// testdata folder. -update rewrites the expected files in the scripts.
func TestScripts(t *testing.T) {
	root := testenv.RepoRoot(t)
	testscript.Run(t, testscript.Params{
		Dir:           filepath.Join("testdata", "script"),
		UpdateScripts: golden.Update(),
		Setup: func(env *testscript.Env) error {
			env.Setenv("EXAMPLES", filepath.Join(root, "examples"))
			env.Setenv("TESTDATA", filepath.Join(root, "testdata"))
			env.Setenv("NO_COLOR", "")
			return nil
		},
	})
}
