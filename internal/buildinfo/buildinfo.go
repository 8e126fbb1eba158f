// Package buildinfo owns what the binary knows about its own build: the
// module version and the VCS commit Go stamps into it, so that
// `agentry --version` and the server's start-up log name the same build.
package buildinfo

import (
	"runtime/debug"
	"strings"
)

// Info is a build's identity.
type Info struct {
	// Version is the main module's version ("v1.2.3", a pseudo-version, or
	// "(devel)" for a build from a work tree).
	Version string
	// Commit is the VCS revision ("" when the build did not record one);
	// Modified reports uncommitted changes in the tree it was built from.
	Commit   string
	Modified bool
	// GoVersion is the toolchain that built the binary.
	GoVersion string
}

// Read returns this binary's build information.
func Read() Info {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Info{Version: "(unknown)"}
	}
	return fromBuildInfo(bi)
}

func fromBuildInfo(bi *debug.BuildInfo) Info {
	in := Info{Version: bi.Main.Version, GoVersion: bi.GoVersion}
	if in.Version == "" {
		in.Version = "(devel)"
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			in.Commit = s.Value
		case "vcs.modified":
			in.Modified = s.Value == "true"
		}
	}
	return in
}

// ShortCommit is the first twelve characters of the commit, with
// "-dirty" when the tree had uncommitted changes; "unknown" when the build
// did not record one.
func (in Info) ShortCommit() string {
	if in.Commit == "" {
		return "unknown"
	}
	c := in.Commit
	if len(c) > 12 {
		c = c[:12]
	}
	if in.Modified {
		c += "-dirty"
	}
	return c
}

// String is the one-line form: "v1.2.3 (commit 0123456789ab, go1.26.8)".
func (in Info) String() string {
	var b strings.Builder
	b.WriteString(in.Version)
	b.WriteString(" (commit ")
	b.WriteString(in.ShortCommit())
	if in.GoVersion != "" {
		b.WriteString(", ")
		b.WriteString(in.GoVersion)
	}
	b.WriteString(")")
	return b.String()
}
