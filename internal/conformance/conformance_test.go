package conformance

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// TestConformance runs every exercise (table and derived) on each database,
// checks the server's surface against the reference, and prints which of
// the reference's operations are implemented and conformant.
func TestConformance(t *testing.T) {
	ref := reference(t)
	var mu sync.Mutex
	implemented := map[string]verdict{} // op → the worst outcome on any database
	// The databases run side by side, each on a server of its own; the
	// report waits for both.
	t.Cleanup(func() { report(t, ref, implemented) })
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		ts := testserver.Start(t, d)
		ops := ServerOps(ts.S.API.OpenAPI())
		ref.Extensions = ExtensionFields(ts.S.API.OpenAPI())
		var faulty map[string]bool
		t.Run("surface", func(t *testing.T) { faulty = checkSurface(t, ref, ops) })
		for _, op := range ops {
			if _, inRef := ref.Ops[op.Key]; !inRef {
				continue // reported by checkSurface
			}
			xs := exercisesOf(op.Key)
			if b, ok := base(xs); ok {
				xs = append(xs, derive(op, b)...)
				xs = append(xs, deriveList(ref, op, b)...)
			}
			ran := 0
			ok := t.Run(TestName(op.Key), func(t *testing.T) {
				for _, x := range xs {
					t.Run(x.Name, func(t *testing.T) { ran++; Run(t, ref, ts, x) })
				}
			})
			v := conformant
			switch {
			case len(exercisesOf(op.Key)) == 0:
				v = unexercised
			case !ok || faulty[op.Key]:
				v = failing
			case ran < len(xs):
				v = filtered
			}
			mu.Lock()
			implemented[op.Key] = max(implemented[op.Key], v)
			mu.Unlock()
		}
	})
}

// reference loads the contract or skips the test when it is absent.
func reference(t *testing.T) *Reference {
	t.Helper()
	ref, err := LoadReference()
	if errors.Is(err, ErrNoReference) {
		t.Skipf("SKIP conformance: the reference contract is not available (%v); "+
			"it is read from ../shared/reference/openapi.json beside the checkout and never copied into the project", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return ref
}

// checkSurface fails for anything the server offers that the contract does
// not, for implemented operations without exercises, for declared statuses
// nobody exercises, and for query parameters that differ from the
// contract's (the strict version refuses undeclared ones, so a missing
// declaration breaks clients). It returns the operations at fault.
func checkSurface(t *testing.T, ref *Reference, ops []ServerOp) map[string]bool {
	faulty := map[string]bool{}
	problems := surfaceProblems(ref, ops, exercises, waivers)
	for _, op := range slices.Sorted(maps.Keys(problems)) {
		for _, p := range problems[op] {
			t.Error(p)
		}
		faulty[op] = true
	}
	for op, ws := range waivers {
		for status, why := range ws {
			t.Logf("waived: %s %d (%s)", op, status, why)
		}
	}
	return faulty
}

// surfaceProblems does checkSurface's work, by operation ("" for problems
// of the table itself).
func surfaceProblems(ref *Reference, ops []ServerOp, table []Exercise, waived map[string]map[int]string) map[string][]string {
	problems := map[string][]string{}
	fail := func(op, format string, args ...any) {
		problems[op] = append(problems[op], fmt.Sprintf(format, args...))
	}
	of := func(op string) []Exercise {
		var out []Exercise
		for _, x := range table {
			if x.Op == op {
				out = append(out, x)
			}
		}
		return out
	}
	served := map[string]bool{}
	for _, op := range ops {
		served[op.Key] = true
		refOp, ok := ref.Ops[op.Key]
		if !ok && op.Extension() {
			// Our own extension: the reference has nothing to check it
			// against; its API tests and the isolation suite cover it.
			continue
		}
		if !ok {
			fail(op.Key, "the server implements %s, which the reference does not have (only %v are allowed beyond it)", op.Key, infrastructure)
			continue
		}
		if got, want := op.QueryParams(), QueryParams(refOp); !slices.Equal(got, want) {
			fail(op.Key, "%s declares query parameters %v, the reference %v", op.Key, got, want)
		}
		xs := of(op.Key)
		if len(xs) == 0 {
			fail(op.Key, "%s is implemented but has no exercise: add register(Exercise{Op: %q, …}) to an exercises_<area>_test.go", op.Key, op.Key)
			continue
		}
		if _, ok := base(xs); !ok && !op.Public() {
			fail(op.Key, "%s needs a 2xx exercise as Owner at the default version (no Service-Version header, no Schema) to derive its auth and version exercises from", op.Key)
		}
		exercised := map[int]bool{}
		for _, x := range xs {
			exercised[x.Status] = true
		}
		for _, status := range Declared(refOp) {
			if !exercised[status] && waived[op.Key][status] == "" {
				fail(op.Key, "%s declares %d in the reference but no exercise expects it (add one, or waive(%q, %d, why))", op.Key, status, op.Key, status)
			}
		}
	}
	for _, x := range table {
		if _, ok := ref.Ops[x.Op]; !ok {
			fail("", "exercise %q names %s, which is not an operation of the reference", x.Name, x.Op)
		} else if !served[x.Op] {
			fail("", "exercise %q is for %s, which the server does not implement", x.Name, x.Op)
		}
	}
	return problems
}

// verdict is an implemented operation's outcome, worst last.
type verdict int

const (
	conformant  verdict = iota + 1
	filtered            // -run left some of its exercises out
	failing             // an exercise or the surface check failed
	unexercised         // no exercise in the table
)

// report prints the implemented operations and the summary line.
func report(t *testing.T, ref *Reference, implemented map[string]verdict) {
	by := map[verdict][]string{}
	for _, op := range ref.Keys() {
		v, ok := implemented[op]
		if !ok {
			continue
		}
		by[v] = append(by[v], op)
		t.Logf("  %-16s %s", map[verdict]string{conformant: "conformant", filtered: "not all run", failing: "NOT CONFORMANT", unexercised: "NOT EXERCISED"}[v], op)
	}
	line := fmt.Sprintf("%d/%d operations implemented and conformant: %s", len(by[conformant]), len(ref.Ops), strings.Join(by[conformant], ", "))
	if n := len(by[filtered]); n > 0 {
		line += fmt.Sprintf("; %d implemented but not fully run (-run filter): %s", n, strings.Join(by[filtered], ", "))
	}
	if n := len(by[failing]); n > 0 {
		line += fmt.Sprintf("; %d implemented but NOT conformant: %s", n, strings.Join(by[failing], ", "))
	}
	if n := len(by[unexercised]); n > 0 {
		line += fmt.Sprintf("; %d implemented without exercises: %s", n, strings.Join(by[unexercised], ", "))
	}
	t.Log(line)
	fmt.Println("conformance:", line)
}
