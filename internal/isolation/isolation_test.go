package isolation

import (
	"testing"

	"github.com/agentry/agentry/internal/conformance"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// TestIsolation runs every case in every variant on each database, and fails
// for any implemented operation without a case.
func TestIsolation(t *testing.T) {
	t.Parallel()
	// Every case has tenants of its own (Run): the cases run side by side,
	// on one server per database, the databases side by side too.
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		ts := testserver.Start(t, d)
		t.Run("coverage", func(t *testing.T) {
			ops := conformance.ServerOps(ts.S.API.OpenAPI())
			for _, missing := range uncovered(ops, cases) {
				t.Errorf("%s is implemented but has no isolation case: add register(Case{Op: %q, …}) to a cases_<area>_test.go", missing, missing)
			}
			// A case for an operation the server lacks would pass NotFound
			// without proving anything.
			for _, op := range unserved(ops, cases) {
				t.Errorf("isolation cases name %s, which the server does not implement", op)
			}
		})
		for _, cs := range cases {
			t.Run(conformance.TestName(cs.Op)+"/"+cs.Name, func(t *testing.T) {
				t.Parallel()
				for _, v := range Variants {
					t.Run(v.Name, func(t *testing.T) { Run(t, ts, cs, v) })
				}
			})
		}
	})
}

// uncovered returns the implemented operations no case names.
func uncovered(ops []conformance.ServerOp, table []Case) []string {
	covered := map[string]bool{}
	for _, c := range table {
		covered[c.Op] = true
	}
	var out []string
	for _, op := range ops {
		if !covered[op.Key] {
			out = append(out, op.Key)
		}
	}
	return out
}

// unserved returns the operations cases name that the server lacks.
func unserved(ops []conformance.ServerOp, table []Case) []string {
	served := map[string]bool{}
	for _, op := range ops {
		served[op.Key] = true
	}
	seen := map[string]bool{}
	var out []string
	for _, c := range table {
		if !served[c.Op] && !seen[c.Op] {
			seen[c.Op] = true
			out = append(out, c.Op)
		}
	}
	return out
}
