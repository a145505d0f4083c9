package run

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/retryspec/retryspec/internal/testenv"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestExecRunsTheExactBytes(t *testing.T) {
	sh := testenv.LookPath(t, "sh")
	parent := map[string]string{"PATH": "/usr/bin:/bin", "HOME": "/root", "SECRET_TOKEN": "leak", "GOCACHE": "/tmp/gocache"}
	x := Exec{Getenv: env(parent)}
	src := "printf '%s|%s|%s|%s' \"$1\" \"${SECRET_TOKEN:-unset}\" \"$GOCACHE\" \"$RETRYSPEC_BASE_URL\"\nexit 3\n"
	p, err := x.Prepare(context.Background(), Program{
		FileName: "snippet.sh", Source: []byte(src), Run: []string{sh, "{file}", "{greeting}"},
		Vars: map[string]string{"greeting": "hi"}, Timeout: 10 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	res, err := p.Run(context.Background(), map[string]string{"RETRYSPEC_BASE_URL": "http://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(res.Stdout), "hi|unset|/tmp/gocache|http://127.0.0.1:1"; got != want {
		t.Errorf("stdout %q, want %q (vars expanded, parent secrets withheld, passthrough kept)", got, want)
	}
	if res.ExitCode != 3 || res.TimedOut {
		t.Errorf("exit %d timedOut %v, want 3 false", res.ExitCode, res.TimedOut)
	}
}

func TestExecTimeoutAndBuildFailure(t *testing.T) {
	sh := testenv.LookPath(t, "sh")
	x := Exec{Getenv: env(map[string]string{"PATH": "/usr/bin:/bin"})}
	p, err := x.Prepare(context.Background(), Program{
		FileName: "s.sh", Source: []byte("sleep 3600\n"), Run: []string{sh, "{file}"}, Timeout: 300 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	// Run returning at all shows the program was ended: its sleep lasts an
	// hour, so a timeout that does not kill hangs the test into go test's
	// -timeout. No wall-clock assertion: a loaded machine may be slow to
	// get there.
	res, err := p.Run(context.Background(), nil)
	if err != nil || !res.TimedOut {
		t.Errorf("timeout: res %+v err %v", res, err)
	}

	_, err = x.Prepare(context.Background(), Program{
		FileName: "s.sh", Source: []byte("x"), Build: []string{sh, "-c", "echo broken >&2; exit 1"}, Run: []string{sh, "{file}"},
	})
	if err == nil || !strings.Contains(err.Error(), "broken") {
		t.Errorf("build failure: err = %v, want the build's output", err)
	}
}

func TestFakeRecords(t *testing.T) {
	f := &Fake{Respond: func(p Program, env map[string]string) (Result, error) {
		return Result{ExitCode: 7, Stdout: []byte(p.FileName)}, nil
	}}
	p, _ := f.Prepare(context.Background(), Program{FileName: "a.py"})
	res, _ := p.Run(context.Background(), map[string]string{"K": "V"})
	if res.ExitCode != 7 || string(res.Stdout) != "a.py" || len(f.Prepared) != 1 || f.Runs[0]["K"] != "V" {
		t.Errorf("fake: %+v %+v", res, f)
	}
}

func TestPrograms(t *testing.T) {
	got := Programs("node", []string{"{tsc}", "--strict", "{file}"}, []string{"node", "snippet.mjs"}, map[string]string{"tsc": "/cache/tsc"})
	if strings.Join(got, " ") != "node /cache/tsc" {
		t.Errorf("Programs = %v, want [node /cache/tsc]", got)
	}
	if got := Programs("go", []string{"go", "build"}, []string{"./snippet"}, nil); strings.Join(got, " ") != "go" {
		t.Errorf("Programs = %v, want [go]", got)
	}
}
