package isolation

import (
	"net/http"
	"testing"

	"github.com/agentry/agentry/internal/testserver"
)

// summaryTotal judges GET /runs/summary: want says whether the count is
// right (B's must be 0, A's at least 1).
func summaryTotal(want func(n int) bool) Expectation {
	return Status(http.StatusOK, func(t testing.TB, _ *Ctx, r testserver.Response) {
		t.Helper()
		var s struct{ Total int }
		r.JSON(t, &s)
		if !want(s.Total) {
			t.Errorf("summary total %d: %.300s", s.Total, r.Body)
		}
	})
}

// The account-wide runs extensions (the console's runs pages): B neither
// lists, counts nor reads A's runs, filtered by A's agent or not.
func init() {
	register(
		Case{Op: "GET /runs", Name: "B lists every run", Setup: runOfA,
			Expect: EmptyList("data"), Control: NonEmptyList("data")},
		Case{Op: "GET /runs", Name: "B filters by A's agent", Setup: runOfA,
			Path: "/runs?agent_id={agent_id}", Expect: EmptyList("data"), Control: NonEmptyList("data")},
		Case{Op: "GET /runs/summary", Name: "B sums the last day", Setup: runOfA,
			Expect: summaryTotal(func(n int) bool { return n == 0 }), Control: summaryTotal(func(n int) bool { return n >= 1 })},
		Case{Op: "GET /runs/{run_id}", Name: "B reads A's run details", Setup: runOfA, Expect: NotFound()},
	)
}

// defaultModelOfA sets A's own default model.
func defaultModelOfA(t *testing.T, c *Ctx) Vars {
	t.Helper()
	if r := c.AsA(t, http.MethodPut, "/models/default", map[string]any{"model_id": "agentry_offline"}); r.Status != http.StatusOK {
		t.Fatalf("A sets its default model: %d %s", r.Status, r.Body)
	}
	return Vars{}
}

// defaultSource judges GET /models/default: whose choice applies.
func defaultSource(want string) Expectation {
	return Status(http.StatusOK, func(t testing.TB, _ *Ctx, r testserver.Response) {
		t.Helper()
		var d struct{ Source string }
		r.JSON(t, &d)
		if d.Source != want {
			t.Errorf("default model source %q, want %q: %.300s", d.Source, want, r.Body)
		}
	})
}

// The account's default model (an extension): A's choice is A's alone.
func init() {
	register(
		Case{Op: "GET /models/default", Name: "A's choice does not apply to B", Setup: defaultModelOfA,
			Expect: defaultSource("server"), Control: defaultSource("account")},
		Case{Op: "PUT /models/default", Name: "B's clearing leaves A's choice", Setup: defaultModelOfA,
			Body: map[string]any{"model_id": nil},
			Expect: Status(http.StatusOK, func(t testing.TB, c *Ctx, _ testserver.Response) {
				t.Helper()
				defaultSource("account")(t, c, c.AsA(t, http.MethodGet, "/models/default", nil))
			}),
			NoControl: true},
	)
}
