package cli

import (
	"context"
	"fmt"
	"regexp"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version and commit may be set at link time:
//
//	go build -ldflags "-X github.com/retryspec/retryspec/cli.version=v1.2.0 -X github.com/retryspec/retryspec/cli.commit=abc123"
//
// Otherwise they come from the build information Go embeds: `go install
// github.com/retryspec/retryspec/cmd/retryspec@latest` records the module
// version (a tag, or a pseudo-version that ends in the commit), and a build
// inside a git clone records the commit itself (vcs.revision) and, since Go
// 1.24, a version derived from the tags.
var version, commit string

type versionInfo struct {
	Version   string
	Commit    string
	Time      string // commit time, when the build recorded it
	GoVersion string
}

func buildVersion() versionInfo {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = nil
	}
	return versionFrom(bi, version, commit, runtime.Version())
}

// pseudoRev matches the commit at the end of a pseudo-version
// (v0.0.0-20261201041332-952c2bb1a2b3, v1.2.4-0.20261201041332-952c2bb1a2b3),
// see https://go.dev/ref/mod#pseudo-versions.
var pseudoRev = regexp.MustCompile(`[-.](\d{14})-([0-9a-f]{12})(\+[0-9A-Za-z.-]+)?$`)

// versionFrom picks the version and commit: link-time values first, then
// the build information; "(devel)" and "unknown" only when none says.
func versionFrom(bi *debug.BuildInfo, linkVersion, linkCommit, goVersion string) versionInfo {
	v := versionInfo{Version: linkVersion, Commit: linkCommit, GoVersion: goVersion}
	if bi != nil {
		if v.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v.Version = bi.Main.Version
		}
		modified := false
		revision := ""
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			case "vcs.time":
				v.Time = s.Value
			}
		}
		if v.Commit == "" && revision != "" {
			v.Commit = revision
			if modified {
				v.Commit += " (modified)"
			}
		}
		// A module build (go install ...@version) records no vcs
		// settings; a pseudo-version still names the commit.
		if v.Commit == "" {
			if m := pseudoRev.FindStringSubmatch(bi.Main.Version); m != nil {
				v.Commit = m[2]
			}
		}
	}
	if v.Version == "" {
		v.Version = "(devel)"
	}
	if v.Commit == "" {
		v.Commit = "unknown"
	}
	return v
}

func (v versionInfo) String() string {
	commit := v.Commit
	if v.Time != "" {
		commit += " (" + v.Time + ")"
	}
	return fmt.Sprintf("retryspec %s\ncommit %s\n%s %s/%s\n", v.Version, commit, v.GoVersion, runtime.GOOS, runtime.GOARCH)
}

type versionOptions struct {
	IO *IO
}

func newVersionCmd(sys *IO, runF func(context.Context, *versionOptions) error) *cobra.Command {
	opts := &versionOptions{IO: sys}
	return &cobra.Command{
		Use:   "version",
		Short: "Print version, commit and Go version",
		Long: `Print the module version, the commit it was built from and the Go version.

Both come from the build information Go embeds: a tagged or pseudo-version
for 'go install github.com/retryspec/retryspec/cmd/retryspec@latest', the
git commit (and whether the work tree was modified) for a build inside a
clone. '(devel)' and 'unknown' mean the build recorded neither.
'retryspec --version' prints the same.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCommand(cmd.Context(), sys, defaultMemory, opts, runF, runVersion)
		},
	}
}

func runVersion(_ context.Context, opts *versionOptions) error {
	_, err := fmt.Fprint(opts.IO.Out, buildVersion())
	return err
}
