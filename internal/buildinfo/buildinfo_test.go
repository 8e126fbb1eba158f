package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestFromBuildInfo(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/agentry/agentry", Version: "v0.4.0"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "8fc22431234567890abcdef"}, {Key: "vcs.modified", Value: "true"}}}
	got := fromBuildInfo(bi).String()
	if want := "v0.4.0 (commit 8fc224312345-dirty, go1.26.8)"; got != want {
		t.Fatalf("String() = %q, want %q", got, want)
	}
	bare := fromBuildInfo(&debug.BuildInfo{GoVersion: "go1.26.8"}).String()
	if want := "(devel) (commit unknown, go1.26.8)"; bare != want {
		t.Fatalf("String() = %q, want %q", bare, want)
	}
}

func TestReadNamesTheToolchain(t *testing.T) {
	if in := Read(); in.GoVersion == "" || in.Version == "" {
		t.Fatalf("Read() = %+v; want a version and a toolchain", in)
	}
}
