package actiontest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/retryspec/retryspec/internal/testenv"
)

type action struct {
	Inputs map[string]struct {
		Default string `yaml:"default"`
	} `yaml:"inputs"`
	Runs struct {
		Using string `yaml:"using"`
		Steps []step `yaml:"steps"`
	} `yaml:"runs"`
}

type step struct {
	ID    string            `yaml:"id"`
	Name  string            `yaml:"name"`
	If    string            `yaml:"if"`
	Shell string            `yaml:"shell"`
	Env   map[string]string `yaml:"env"`
	Run   string            `yaml:"run"`
	Uses  string            `yaml:"uses"`
	With  map[string]string `yaml:"with"`
}

func (s step) label() string {
	if s.ID != "" {
		return s.ID
	}
	return s.Name
}

func loadAction(t *testing.T) action {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a action
	if err := yaml.Unmarshal(data, &a); err != nil {
		t.Fatal(err)
	}
	return a
}

// buildRetryspec compiles the command from this checkout once per test
// binary, so the action runs against the code under test (no go install,
// no network).
func buildRetryspec(t *testing.T) string {
	t.Helper()
	gobin := testenv.LookPath(t, "go")
	built.Do(func() {
		dir, err := os.MkdirTemp("", "retryspec-actiontest-")
		if err != nil {
			built.err = err
			return
		}
		cmd := exec.Command(gobin, "build", "-o", filepath.Join(dir, "retryspec"), "./cmd/retryspec")
		cmd.Dir = testenv.RepoRoot(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
		built.dir = dir
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.dir
}

var built struct {
	sync.Once
	dir string
	err error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// implemented reports which retryspec commands exist in this build. A
// command whose owner has not landed yet still prints the placeholder;
// the steps that call it are skipped (and logged) until it lands, then
// this test runs and checks them with no change.
func implemented(t *testing.T, bin string) map[string]bool {
	out := map[string]bool{}
	for _, name := range []string{"check", "copy", "diff", "build"} {
		b, _ := exec.Command(filepath.Join(bin, "retryspec"), name, "--help").CombinedOutput()
		out[name] = !strings.Contains(string(b), "not implemented yet")
	}
	return out
}

var subcommand = regexp.MustCompile(`\bretryspec ([a-z]+)\b`)

// runner executes an action's steps the way the runner does for a composite
// action: each run block in `bash --noprofile --norc -eo pipefail`, env
// expressions evaluated, GITHUB_OUTPUT per step, a shared job summary,
// GITHUB_PATH applied to later steps. `uses:` steps are not run (they need
// GitHub); the runner records whether their condition held and their inputs.
type runner struct {
	t         *testing.T
	repo      string
	temp      string
	bin       string
	have      map[string]bool
	ctx       map[string]string // expression contexts: inputs.x, github.x, steps.x
	summary   string
	pathFile  string
	failed    bool
	exit      map[string]int    // step label -> exit status
	skipped   map[string]string // step label -> why the test did not run it
	used      map[string]map[string]string
	stdout    map[string]string
	extraPath []string
}

func newRunner(t *testing.T, repo, bin string, have map[string]bool, a action, inputs, github map[string]string) *runner {
	temp := t.TempDir()
	r := &runner{
		t: t, repo: repo, temp: temp, bin: bin, have: have,
		ctx:      map[string]string{"runner.temp": temp},
		summary:  filepath.Join(temp, "summary.md"),
		pathFile: filepath.Join(temp, "path.txt"),
		exit:     map[string]int{}, skipped: map[string]string{},
		used: map[string]map[string]string{}, stdout: map[string]string{},
	}
	for name, in := range a.Inputs {
		r.ctx["inputs."+name] = in.Default
	}
	for k, v := range inputs {
		if _, ok := a.Inputs[k]; !ok {
			t.Fatalf("action.yml has no input %q", k)
		}
		r.ctx["inputs."+k] = v
	}
	for k, v := range github {
		r.ctx["github."+k] = v
	}
	for _, f := range []string{r.summary, r.pathFile} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

var exprRe = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)

func (r *runner) lookup(name string) string {
	if v, ok := r.ctx[name]; ok {
		return v
	}
	if strings.HasPrefix(name, "steps.") || strings.HasPrefix(name, "github.event.") {
		return "" // absent outputs and event fields are empty, as on GitHub
	}
	r.t.Fatalf("action.yml uses the expression context %q, which this test does not model", name)
	return ""
}

func (r *runner) expand(s string) string {
	return exprRe.ReplaceAllStringFunc(s, func(m string) string {
		return r.lookup(exprRe.FindStringSubmatch(m)[1])
	})
}

var termRe = regexp.MustCompile(`^([a-z_][a-z0-9_.-]*)\s*(==|!=)\s*'([^']*)'$`)

// cond evaluates the small subset of the expression language action.yml
// uses: terms joined by &&, each !cancelled() or context == / != 'literal'.
func (r *runner) cond(expr string) bool {
	expr = strings.TrimSpace(expr)
	if expr == "" {
		return !r.failed // success()
	}
	if m := exprRe.FindStringSubmatch(expr); m != nil && m[0] == expr {
		expr = m[1]
	}
	for _, term := range strings.Split(expr, "&&") {
		term = strings.TrimSpace(term)
		switch {
		case term == "!cancelled()" || term == "always()":
			continue
		case term == "success()":
			if r.failed {
				return false
			}
			continue
		}
		m := termRe.FindStringSubmatch(term)
		if m == nil {
			r.t.Fatalf("action.yml condition term %q is outside the subset this test evaluates", term)
		}
		if (r.lookup(m[1]) == m[3]) != (m[2] == "==") {
			return false
		}
	}
	return true
}

func (r *runner) run(steps []step) {
	for _, s := range steps {
		label := s.label()
		if !r.cond(s.If) {
			r.skipped[label] = "condition false"
			if s.ID != "" {
				r.ctx["steps."+s.ID+".outcome"] = "skipped"
			}
			continue
		}
		if s.Uses != "" {
			with := map[string]string{}
			for k, v := range s.With {
				with[k] = r.expand(v)
			}
			r.used[label] = with
			continue
		}
		if s.Shell != "bash" {
			r.t.Fatalf("step %s: shell %q; the action's scripts are bash", label, s.Shell)
		}
		var missing []string
		for _, m := range subcommand.FindAllStringSubmatch(s.Run, -1) {
			if known, ok := r.have[m[1]]; ok && !known && !contains(missing, m[1]) {
				missing = append(missing, m[1])
			}
		}
		if len(missing) > 0 {
			r.skipped[label] = "retryspec " + strings.Join(missing, ", ") + " not implemented in this build yet"
			r.t.Logf("NOT RUN: step %s: %s", label, r.skipped[label])
			if s.ID != "" {
				r.ctx["steps."+s.ID+".outcome"] = "skipped"
			}
			continue
		}
		code, out := r.exec(s)
		r.exit[label] = code
		r.stdout[label] = out
		outcome := "success"
		if code != 0 {
			outcome, r.failed = "failure", true
		}
		if s.ID != "" {
			r.ctx["steps."+s.ID+".outcome"] = outcome
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (r *runner) exec(s step) (int, string) {
	t := r.t
	script := filepath.Join(r.temp, "step-"+s.label()+".sh")
	if err := os.WriteFile(script, []byte(s.Run), 0o644); err != nil {
		t.Fatal(err)
	}
	output := filepath.Join(r.temp, "output-"+s.label())
	if err := os.WriteFile(output, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// GITHUB_PATH entries from earlier steps come first, as on the runner.
	if b, err := os.ReadFile(r.pathFile); err == nil {
		r.extraPath = nil
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if l != "" {
				r.extraPath = append([]string{l}, r.extraPath...)
			}
		}
	}
	path := strings.Join(append(append(r.extraPath, r.bin), os.Getenv("PATH")), string(os.PathListSeparator))
	env := []string{
		"PATH=" + path, "HOME=" + r.temp, "LANG=C.UTF-8",
		"GIT_CONFIG_GLOBAL=" + os.DevNull, "GIT_CONFIG_NOSYSTEM=1",
		"RUNNER_TEMP=" + r.temp, "GITHUB_WORKSPACE=" + r.repo, "GITHUB_ACTIONS=true",
		"GITHUB_OUTPUT=" + output, "GITHUB_STEP_SUMMARY=" + r.summary, "GITHUB_PATH=" + r.pathFile,
		"GITHUB_ENV=" + filepath.Join(r.temp, "env"),
		"GITHUB_EVENT_NAME=" + r.ctx["github.event_name"], "GITHUB_REF=" + r.ctx["github.ref"],
	}
	keys := make([]string, 0, len(s.Env))
	for k := range s.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		env = append(env, k+"="+r.expand(s.Env[k]))
	}
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
	cmd.Dir, cmd.Env = r.repo, env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("step %s: %v", s.label(), err)
	}
	b, _ := os.ReadFile(output)
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, "="); ok && s.ID != "" {
			r.ctx["steps."+s.ID+".outputs."+k] = v
		}
	}
	t.Logf("step %s exited %d:\n%s", s.label(), code, out.String())
	return code, out.String()
}

func (r *runner) summaryText() string {
	b, err := os.ReadFile(r.summary)
	if err != nil {
		r.t.Fatal(err)
	}
	return string(b)
}

// gitRepo makes the repository a pull request runs in: the contract and a
// docs page on main, then a feature branch whose contract is contractOnPR.
func gitRepo(t *testing.T, contract, contractOnPR []byte) (dir, baseSHA string) {
	t.Helper()
	testenv.LookPath(t, "git")
	dir = t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=Ada", "GIT_AUTHOR_EMAIL=ada@example.com",
			"GIT_COMMITTER_NAME=Ada", "GIT_COMMITTER_EMAIL=ada@example.com")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	write := func(name string, data []byte) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q", "-b", "main")
	write("retryspec.yaml", contract)
	// Pages matching the example's docs.copy.include patterns.
	write("docs/retries.mdx", []byte("# Retries\n\nSend the same Idempotency-Key on every retry of one request.\n"))
	write("marketing/launch.md", []byte("# Safe retries\n\nA retried payout with the same key is processed once within the replay window.\n"))
	git("add", "-A")
	git("commit", "-q", "-m", "contract")
	baseSHA = git("rev-parse", "HEAD")
	if contractOnPR != nil {
		git("checkout", "-q", "-b", "feature")
		write("retryspec.yaml", contractOnPR)
		git("commit", "-q", "-am", "change the contract")
	}
	return dir, baseSHA
}

func TestActionSteps(t *testing.T) {
	a := loadAction(t)
	if a.Runs.Using != "composite" {
		t.Fatalf("action.yml runs using %q, want composite", a.Runs.Using)
	}
	bin := buildRetryspec(t)
	have := implemented(t, bin)
	if !have["diff"] {
		t.Fatal("retryspec diff is not implemented in this build")
	}
	example, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "examples", "payouts", "retryspec.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	window := func(to string) []byte {
		if !bytes.Contains(example, []byte("replay_window: 24h")) {
			t.Fatal("the example contract no longer says replay_window: 24h; update this test")
		}
		return bytes.Replace(example, []byte("replay_window: 24h"), []byte("replay_window: "+to), 1)
	}
	noCopyList := regexp.MustCompile(`(?m)^docs:\n(  .*\n)+`).ReplaceAll(example, nil)
	if bytes.Equal(noCopyList, example) {
		t.Fatal("the example contract has no docs section; update this test")
	}
	acknowledged := append(window("12h"), []byte("changes:\n  - field: idempotency.replay_window\n    because: \"no partner retries beyond 2h\"\n")...)

	type want struct {
		diffExit   int
		breaking   string   // the diff step's output, "" when it did not report
		summary    []string // in the job summary
		noSummary  bool
		siteBuilt  bool
		actionFail bool
		checkFails bool // the contract has a lint error
		// copyNoList: the PR's contract lists no docs.copy.include; with
		// copy: auto the step skips, with copy: true it fails (exit 2).
		copyNoList bool
	}
	for _, tc := range []struct {
		name   string
		onPR   []byte // nil: a push to main
		inputs map[string]string
		want   want
	}{
		{"pull request, notable change", window("48h"), nil,
			want{diffExit: 0, breaking: "false", summary: []string{"## Contract changes", "### Notable", "`idempotency.replay_window`", "`48h`"}}},
		{"pull request, breaking change", window("12h"), nil,
			want{diffExit: 1, breaking: "true", summary: []string{"[!CAUTION]", "### Breaking", "**Migration:**"}, actionFail: true}},
		{"pull request, breaking change acknowledged", acknowledged, nil,
			want{diffExit: 0, breaking: "false", summary: []string{"### Breaking", "**Acknowledged:** No partner retries beyond 2h."}}},
		{"pull request, breaking change allowed", window("12h"), map[string]string{"allow-breaking": "true"},
			want{diffExit: 0, breaking: "false", summary: []string{"### Breaking"}}},
		{"pull request, lint error and a notable change", bytes.Replace(example, []byte("honor_retry_after: true"), []byte("honor_retry_after: false"), 1), nil,
			want{diffExit: 0, breaking: "false", summary: []string{"### Notable", "`retry.honor_retry_after`"}, checkFails: true}},
		{"pull request, no copy patterns, copy auto", noCopyList, nil,
			want{diffExit: 0, breaking: "false", summary: []string{"### Compatible"}, copyNoList: true}},
		{"pull request, no copy patterns, copy required", noCopyList, map[string]string{"copy": "true"},
			want{diffExit: 0, breaking: "false", copyNoList: true, actionFail: true}},
		{"push to the default branch", nil, nil,
			want{diffExit: 0, noSummary: true, siteBuilt: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo, base := gitRepo(t, example, tc.onPR)
			github := map[string]string{
				"event_name": "push", "ref": "refs/heads/main",
				"event.repository.default_branch": "main",
			}
			if tc.onPR != nil {
				github["event_name"], github["ref"] = "pull_request", "refs/pull/7/merge"
				github["event.pull_request.base.sha"] = base
			}
			inputs := map[string]string{"version": ""} // the retryspec built above, on PATH
			for k, v := range tc.inputs {
				inputs[k] = v
			}
			r := newRunner(t, repo, bin, have, a, inputs, github)
			r.run(a.Runs.Steps)

			if code, ok := r.exit["install"]; !ok || code != 0 {
				t.Fatalf("install step: exit %d (ran %v)", code, ok)
			}
			if code := r.exit["diff"]; code != tc.want.diffExit {
				t.Errorf("diff step exited %d, want %d", code, tc.want.diffExit)
			}
			if got := r.ctx["steps.diff.outputs.breaking"]; tc.want.breaking != "" && got != tc.want.breaking {
				t.Errorf("diff output breaking=%q, want %q", got, tc.want.breaking)
			}
			summary := r.summaryText()
			for _, s := range tc.want.summary {
				if !strings.Contains(summary, s) {
					t.Errorf("job summary lacks %q:\n%s", s, summary)
				}
			}
			if tc.want.noSummary && summary != "" {
				t.Errorf("job summary written outside a pull request:\n%s", summary)
			}
			annotated := strings.Contains(summary, "### Breaking") || strings.Contains(summary, "### Notable")
			if annotated && !strings.Contains(r.stdout["diff"], "::") {
				t.Errorf("diff step printed no annotations:\n%s", r.stdout["diff"])
			}

			// check and copy: the step's status is the command's own.
			for _, name := range []string{"check", "copy"} {
				if name == "copy" && tc.want.copyNoList && have["copy"] {
					required := tc.inputs["copy"] == "true"
					switch {
					case required && r.exit["copy"] != 2:
						t.Errorf("copy: true on a contract without docs.copy.include: step exited %d, want 2", r.exit["copy"])
					case !required && (r.exit["copy"] != 0 || !strings.Contains(r.stdout["copy"], "lists no docs.copy.include: nothing to lint")):
						t.Errorf("copy: auto on a contract without docs.copy.include: step exited %d:\n%s", r.exit["copy"], r.stdout["copy"])
					}
					continue
				}
				if name == "copy" && tc.want.copyNoList {
					continue // copy not in this build; the unimplemented case is checked on other scenarios
				}
				if !have[name] {
					if !strings.Contains(r.skipped[name], "not implemented") {
						t.Errorf("step %s neither ran nor was skipped as unimplemented: %q", name, r.skipped[name])
					}
					continue
				}
				args := []string{name, "-c", "retryspec.yaml"}
				if name == "copy" {
					args = append(args, "--strict") // as the step runs it
				}
				direct := exec.Command(filepath.Join(bin, "retryspec"), args...)
				direct.Dir = repo
				want := 0
				if err := direct.Run(); err != nil {
					want = err.(*exec.ExitError).ExitCode()
				}
				if r.exit[name] != want {
					t.Errorf("step %s exited %d; retryspec %s exits %d", name, r.exit[name], name, want)
				}
				if !(tc.want.checkFails && name == "check") && want != 0 {
					t.Errorf("retryspec %s fails (exit %d) on the sound example contract and its clean pages:\n%s", name, want, r.stdout[name])
				}
				upload := "Upload contract findings to code scanning"
				if name == "copy" {
					upload = "Upload copy findings to code scanning"
				}
				sarif := r.ctx["steps."+name+".outputs.sarif"]
				if want != 2 {
					if sarif == "" {
						t.Errorf("step %s reported no SARIF file", name)
					} else if b, err := os.ReadFile(sarif); err != nil || !bytes.Contains(b, []byte(`"version": "2.1.0"`)) {
						t.Errorf("step %s: %s is not SARIF 2.1.0 (%v)", name, sarif, err)
					}
					if r.used[upload]["sarif_file"] != sarif {
						t.Errorf("%q would not upload %s: %v", upload, sarif, r.used[upload])
					}
				}
				if want != 0 && !r.failed {
					t.Errorf("step %s failed but the action did not", name)
				}
			}

			// build: only on a push to the default branch.
			const pages = "Upload the site as a GitHub Pages artifact"
			switch {
			case !have["build"]:
				if !strings.Contains(r.skipped["build"], "not implemented") {
					t.Errorf("build step neither ran nor was skipped as unimplemented: %q", r.skipped["build"])
				}
			case tc.want.siteBuilt:
				site := r.ctx["steps.build.outputs.site"]
				if r.exit["build"] != 0 || site == "" {
					t.Fatalf("build step: exit %d, site %q", r.exit["build"], site)
				}
				if _, err := os.Stat(filepath.Join(site, "index.html")); err != nil {
					t.Errorf("built site has no index.html: %v", err)
				}
				if r.used[pages]["path"] != site {
					t.Errorf("the Pages upload would not get %s: %v", site, r.used[pages])
				}
			default:
				if r.exit["build"] != 0 || r.ctx["steps.build.outputs.site"] != "" {
					t.Errorf("build step on a pull request: exit %d, site %q", r.exit["build"], r.ctx["steps.build.outputs.site"])
				}
				if _, ok := r.used[pages]; ok {
					t.Error("the Pages upload would run on a pull request")
				}
			}
			// A failing check does not hide the diff, and fails the action.
			if tc.want.checkFails && have["check"] {
				if r.exit["check"] != 1 || !r.failed {
					t.Errorf("check step exited %d on a contract with a lint error (action failed: %v)", r.exit["check"], r.failed)
				}
				if _, ran := r.exit["diff"]; !ran {
					t.Error("the diff did not run after check failed")
				}
				if !strings.Contains(r.stdout["check"], "::error file=retryspec.yaml") {
					t.Errorf("check step printed no annotations:\n%s", r.stdout["check"])
				}
			}
			// The action fails when the diff does (or a required copy lint cannot run).
			if tc.want.actionFail && !r.failed && (!tc.want.copyNoList || have["copy"]) {
				t.Error("the action would pass despite a failing step")
			}
			if !tc.want.actionFail && r.failed {
				for label, code := range r.exit {
					if code != 0 && label == "diff" {
						t.Errorf("the action fails on step %s", label)
					}
				}
			}
		})
	}
}

// TestInstallStepUsesGoInstall pins the install command the runner uses
// outside this test (where it needs the network).
func TestInstallStepUsesGoInstall(t *testing.T) {
	for _, s := range loadAction(t).Runs.Steps {
		if s.ID == "install" {
			if !strings.Contains(s.Run, `go install "github.com/retryspec/retryspec/cmd/retryspec@$RETRYSPEC_VERSION"`) {
				t.Errorf("install step does not go install the module:\n%s", s.Run)
			}
			return
		}
	}
	t.Fatal("no install step")
}

func TestPreCommitHooks(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), ".pre-commit-hooks.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var hooks []struct {
		ID            string `yaml:"id"`
		Name          string `yaml:"name"`
		Entry         string `yaml:"entry"`
		Language      string `yaml:"language"`
		PassFilenames *bool  `yaml:"pass_filenames"`
	}
	if err := yaml.Unmarshal(data, &hooks); err != nil {
		t.Fatal(err)
	}
	byID := map[string]int{}
	for i, h := range hooks {
		if h.ID == "" || h.Name == "" || h.Entry == "" || h.Language != "golang" {
			t.Errorf("hook %+v: needs id, name, entry and language golang", h)
		}
		if !strings.HasPrefix(h.Entry, "retryspec ") {
			t.Errorf("hook %s runs %q, not retryspec", h.ID, h.Entry)
		}
		byID[h.ID] = i
	}
	for _, id := range []string{"retryspec-check", "retryspec-copy", "retryspec-diff"} {
		if _, ok := byID[id]; !ok {
			t.Fatalf("no %s hook", id)
		}
	}

	// Run each hook's entry the way pre-commit does: from the repository's
	// top, with the staged file names appended when pass_filenames is on.
	bin := buildRetryspec(t)
	have := implemented(t, bin)
	example, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "examples", "payouts", "retryspec.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	repo, _ := gitRepo(t, example, nil)
	if err := os.WriteFile(filepath.Join(repo, "retryspec.yaml"), bytes.Replace(example, []byte("replay_window: 24h"), []byte("replay_window: 12h"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		id    string
		files []string
		want  int
	}{
		{"retryspec-check", []string{"retryspec.yaml"}, 0},
		{"retryspec-copy", []string{"docs/retries.mdx", "marketing/launch.md"}, 0},
		{"retryspec-diff", []string{"retryspec.yaml"}, 1}, // the shorter window is breaking
	} {
		h := hooks[byID[tc.id]]
		args := strings.Fields(h.Entry)
		if !have[args[1]] {
			t.Logf("NOT RUN: hook %s: retryspec %s not implemented in this build yet", h.ID, args[1])
			continue
		}
		if h.PassFilenames == nil || *h.PassFilenames {
			args = append(args, tc.files...)
		}
		cmd := exec.Command(filepath.Join(bin, args[0]), args[1:]...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != tc.want {
			t.Errorf("hook %s (%s): exit %d, want %d\n%s", h.ID, strings.Join(args, " "), code, tc.want, out)
		}
	}
}
