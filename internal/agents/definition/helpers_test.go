package definition

import (
	"context"
	"strings"
	"testing"
)

// Shared fixtures and helpers of the package's tests.

const (
	kbID    = "0190a000-0000-7000-8000-00000000000b"
	kb2ID   = "0190a000-0000-7000-8000-0000000000b2"
	bankID  = "0190a000-0000-7000-8000-00000000000e"
	srcID   = "0190a000-0000-7000-8000-00000000005c"
	agentID = "0190a000-0000-7000-8000-00000000000a"
	userID  = "0190a000-0000-7000-8000-000000000005"
)

// acceptAll is a Resolver for an account that has every entity.
var acceptAll = ResolverFunc(func(context.Context, RefKind, string) (bool, error) { return true, nil })

// accountWith is a Resolver for an account holding exactly ids.
func accountWith(ids ...string) Resolver {
	set := map[string]bool{}
	for _, id := range ids {
		set[id] = true
	}
	return ResolverFunc(func(_ context.Context, _ RefKind, id string) (bool, error) { return set[id], nil })
}

// mustParse reads a bare definition that must have no shape errors.
func mustParse(t *testing.T, js string) *Definition {
	t.Helper()
	d, probs, err := ParseDefinition([]byte(js))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	if probs.HasErrors() {
		t.Fatalf("shape errors: %v", probs.Errors())
	}
	return d
}

// check parses and validates a bare definition, returning every problem.
func check(t *testing.T, js string, opts ValidateOptions) Problems {
	t.Helper()
	d, probs, err := ParseDefinition([]byte(js))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	rep, err := Validate(context.Background(), d, opts)
	if err != nil {
		t.Fatalf("validate: %v", err)
	}
	return append(probs, rep.Problems...)
}

func hasProblem(ps Problems, sev Severity, code Code, path string) bool {
	for _, p := range ps {
		if p.Severity == sev && p.Code == code && (path == "" || p.Path == path) {
			return true
		}
	}
	return false
}

func dump(ps Problems) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString("\n  " + string(p.Severity) + " " + string(p.Code) + " " + p.Error())
	}
	return b.String()
}
