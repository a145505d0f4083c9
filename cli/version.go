package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version and commit may be set at link time:
//
//	go build -ldflags "-X github.com/retryspec/retryspec/cli.version=v1.2.0 -X github.com/retryspec/retryspec/cli.commit=abc123"
//
// Otherwise they come from the build information Go embeds.
var version, commit string

type versionInfo struct {
	Version   string
	Commit    string
	GoVersion string
}

func buildVersion() versionInfo {
	v := versionInfo{Version: version, Commit: commit, GoVersion: runtime.Version()}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v.Version == "" && bi.Main.Version != "" {
			v.Version = bi.Main.Version
		}
		modified := false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				if v.Commit == "" {
					v.Commit = s.Value
				}
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		if modified && v.Commit != "" && v.Commit == commitFromBuildInfo(bi) {
			v.Commit += " (modified)"
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

func commitFromBuildInfo(bi *debug.BuildInfo) string {
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" {
			return s.Value
		}
	}
	return ""
}

func newVersionCmd(sys *IO) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print version, commit and Go version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			v := buildVersion()
			_, err := fmt.Fprintf(sys.Out, "retryspec %s\ncommit %s\n%s %s/%s\n", v.Version, v.Commit, v.GoVersion, runtime.GOOS, runtime.GOARCH)
			return err
		},
	}
}
