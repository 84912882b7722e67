package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is set at build time: go build -ldflags "-X main.version=1.2.3".
var version string

func buildVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

type versionView struct {
	Version string `json:"version"`
	Go      string `json:"go"`
	OS      string `json:"os"`
	Arch    string `json:"arch"`
}

func (a *app) versionGetCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of this CLI",
		Args:  noArgs,
		// It asks no server: a stored login is not even read.
		Annotations: map[string]string{annotationNoLogin: "true"},
		RunE: a.runE(func(*cobra.Command, []string) error {
			v := versionView{Version: buildVersion(), Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
			return a.emit(v, func(w io.Writer) error {
				_, err := fmt.Fprintf(w, "manent %s (%s, %s/%s)\n", v.Version, v.Go, v.OS, v.Arch)
				return err
			})
		}),
	}
}
