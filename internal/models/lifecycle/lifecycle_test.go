package lifecycle

import (
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/models/catalog"
)

// A family of test models layered over the built-in catalog:
// acme_v1 (deprecated, sunset 2026-06-30, successor acme_v2),
// acme_v2 (released 2026-01-01), acme_v3 (released 2026-05-20),
// acme_v3_lite (no tool use: never a compatible target), acme_v4 (future).
const acmeModels = `
models:
  - {id: acme_v1, api_name: acme-1, name: Acme 1, provider: acme, family: acme, family_generation: 1, kind: chat,
     max_context_tokens: 100000, max_output_tokens: 8000, supports_tool_use: true, pricing: {input: 100, output: 200},
     released_at: 2025-01-01, deprecated_at: 2026-03-01, sunset_at: 2026-06-30, successor_id: acme_v2}
  - {id: acme_v2, api_name: acme-2, name: Acme 2, provider: acme, family: acme, family_generation: 2, kind: chat,
     max_context_tokens: 200000, max_output_tokens: 8000, supports_tool_use: true, pricing: {input: 100, output: 200},
     released_at: 2026-01-01}
  - {id: acme_v3, api_name: acme-3, name: Acme 3, provider: acme, family: acme, family_generation: 3, kind: chat,
     max_context_tokens: 200000, max_output_tokens: 16000, supports_tool_use: true, pricing: {input: 100, output: 200},
     released_at: 2026-05-20}
  - {id: acme_v3_lite, api_name: acme-3-lite, name: Acme 3 Lite, provider: acme, family: acme, family_generation: 3.5, kind: chat,
     max_context_tokens: 200000, max_output_tokens: 16000, supports_tool_use: false, pricing: {input: 10, output: 20},
     released_at: 2026-05-25}
  - {id: acme_v4, api_name: acme-4, name: Acme 4, provider: acme, family: acme, family_generation: 4, kind: chat,
     max_context_tokens: 200000, max_output_tokens: 16000, supports_tool_use: true, pricing: {input: 100, output: 200},
     released_at: 2027-01-01}
`

func acme(t *testing.T) *catalog.Catalog {
	t.Helper()
	c, err := catalog.Load([]byte(acmeModels))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func date(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestEvaluateStates(t *testing.T) {
	c := acme(t)
	v1, _ := c.Get("acme_v1")
	cases := []struct {
		now  string
		want State
		days int
	}{
		{"2026-02-01", StateActive, 149},
		{"2026-03-01", StateDeprecated, 121},
		{"2026-05-31", StateNearingSunset, 30},
		{"2026-06-29", StateNearingSunset, 1},
		{"2026-06-30", StateSunset, 0},
		{"2026-07-10", StateSunset, -10},
	}
	for _, tc := range cases {
		st := Evaluate(v1, date(tc.now), Policy{})
		if st.State != tc.want || *st.DaysUntilSunset != tc.days {
			t.Errorf("%s: %s (%d days), want %s (%d)", tc.now, st.State, *st.DaysUntilSunset, tc.want, tc.days)
		}
	}
	// The window is configurable.
	if st := Evaluate(v1, date("2026-05-31"), Policy{SunsetWarning: 7 * 24 * time.Hour}); st.State != StateDeprecated {
		t.Errorf("7-day window: %s", st.State)
	}
	// A model with only an announced shutdown date is deprecated.
	gpt4o, _ := catalog.Builtin().Get("openai_gpt_4o")
	if st := Evaluate(gpt4o, date("2026-06-01"), Policy{}); st.State != StateDeprecated {
		t.Errorf("gpt-4o in June 2026: %s", st.State)
	}
}

func TestAlerts(t *testing.T) {
	c := acme(t)
	a, err := Alerts(c, "acme_v1", date("2026-03-15"), Policy{})
	if err != nil || len(a) != 1 || a[0].Type != AlertDeprecated || a[0].SuccessorID != "acme_v2" ||
		!strings.Contains(a[0].Message, "retired on 2026-06-30") || !strings.Contains(a[0].Message, "Switch to Acme 2") {
		t.Fatalf("deprecated alert: %+v %v", a, err)
	}
	near, _ := Alerts(c, "acme_v1", date("2026-06-20"), Policy{})
	if len(near) != 1 || near[0].Type != AlertSunset || !strings.Contains(near[0].Message, "in 10 days") || near[0].Key == a[0].Key {
		t.Errorf("nearing alert: %+v", near)
	}
	gone, _ := Alerts(c, "acme_v1", date("2026-07-01"), Policy{})
	if len(gone) != 1 || gone[0].Type != AlertSunset || !strings.Contains(gone[0].Message, "calls to it fail") || gone[0].Key == near[0].Key {
		t.Errorf("retired alert: %+v", gone)
	}
	// Same facts, same key: the sweep can run daily without repeating.
	again, _ := Alerts(c, "acme_v1", date("2026-06-25"), Policy{})
	if again[0].Key != near[0].Key {
		t.Error("key changed while facts did not")
	}
	newer, _ := Alerts(c, "acme_v2", date("2026-06-01"), Policy{})
	if len(newer) != 1 || newer[0].Type != AlertNewerAvailable || newer[0].SuccessorID != "acme_v3_lite" && newer[0].SuccessorID != "acme_v3" {
		t.Errorf("newer alert: %+v", newer)
	}
	// Before acme_v3 exists, acme_v2 is the newest released: no alert.
	if none, _ := Alerts(c, "acme_v2", date("2026-02-01"), Policy{}); len(none) != 0 {
		t.Errorf("alert before any newer model: %+v", none)
	}
	if _, err := Alerts(c, "nope", date("2026-02-01"), Policy{}); err == nil {
		t.Error("unknown model")
	}
	// Real data: Claude Sonnet 4.5 retires 2026-11-30; on 2026-11-22 the
	// alert suggests the newest usable Sonnet (its designated successor is
	// disabled until priced).
	real, _ := Alerts(catalog.Builtin(), "anthropic_claude_sonnet_4_5", date("2026-11-22"), Policy{})
	if len(real) != 1 || real[0].Type != AlertSunset || real[0].SuccessorID != "anthropic_claude_sonnet_4_6" {
		t.Errorf("sonnet 4.5: %+v", real)
	}
}

func TestUpgradeStrategies(t *testing.T) {
	c := acme(t)
	decide := func(id string, s Strategy, now string, p Policy) UpgradeDecision {
		t.Helper()
		d, err := DecideUpgrade(c, id, s, date(now), p)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	// none never moves, even past sunset.
	if d := decide("acme_v1", StrategyNone, "2026-07-10", Policy{}); d.Upgrade {
		t.Error("none upgraded")
	}
	// early_adopter: newest compatible, as soon as it is out (v3_lite lacks tools, v4 not yet released).
	if d := decide("acme_v2", StrategyEarly, "2026-05-21", Policy{}); !d.Upgrade || d.Target.ID != "acme_v3" {
		t.Errorf("early: %+v", d)
	}
	if d := decide("acme_v2", StrategyEarly, "2026-05-19", Policy{}); d.Upgrade {
		t.Errorf("early before release: %+v", d)
	}
	// middle_of_road waits for the settle period…
	d := decide("acme_v2", StrategyMiddle, "2026-06-01", Policy{})
	if d.Upgrade || d.Target.ID != "acme_v3" || d.NotBefore == nil || !d.NotBefore.Equal(date("2026-06-19")) {
		t.Errorf("middle waiting: %+v", d)
	}
	if d := decide("acme_v2", StrategyMiddle, "2026-06-19", Policy{}); !d.Upgrade || d.Target.ID != "acme_v3" {
		t.Errorf("middle settled: %+v", d)
	}
	// …but moves at once off a deprecated model, to the designated successor.
	if d := decide("acme_v1", StrategyMiddle, "2026-03-02", Policy{}); !d.Upgrade || d.Target.ID != "acme_v2" {
		t.Errorf("middle deprecated: %+v", d)
	}
	// cautious_adopter moves only near sunset, to the successor.
	d = decide("acme_v1", StrategyCautious, "2026-05-01", Policy{})
	if d.Upgrade || d.NotBefore == nil || !d.NotBefore.Equal(date("2026-05-31")) {
		t.Errorf("cautious waiting: %+v", d)
	}
	if d := decide("acme_v1", StrategyCautious, "2026-06-05", Policy{}); !d.Upgrade || d.Target.ID != "acme_v2" {
		t.Errorf("cautious moving: %+v", d)
	}
	if d := decide("acme_v2", StrategyCautious, "2026-12-01", Policy{}); d.Upgrade {
		t.Errorf("cautious without sunset moved: %+v", d)
	}
	// Excluded targets (rolled back from) are skipped.
	if d := decide("acme_v2", StrategyEarly, "2026-05-21", Policy{Excluded: []string{"acme_v3"}}); d.Upgrade {
		t.Errorf("excluded target chosen: %+v", d)
	}
	if _, err := DecideUpgrade(c, "acme_v1", Strategy("yolo"), date("2026-01-01"), Policy{}); err == nil {
		t.Error("bad strategy accepted")
	}
	if _, err := ParseStrategy(""); err != nil {
		t.Error("empty strategy should mean none")
	}
}

func TestCompatible(t *testing.T) {
	c := catalog.Builtin()
	gpt4o, _ := c.Get("openai_gpt_4o")
	gpt41, _ := c.Get("openai_gpt_4_1")
	o3mini, _ := c.Get("openai_o3_mini")
	if !Compatible(gpt4o, gpt41) {
		t.Error("gpt-4.1 should replace gpt-4o")
	}
	if Compatible(gpt4o, o3mini) {
		t.Error("text-only o3-mini cannot replace image-capable gpt-4o")
	}
}

func TestRollback(t *testing.T) {
	c := acme(t)
	up := Upgrade{From: "acme_v2", To: "acme_v3", At: date("2026-06-20")}
	on := RollbackPolicy{Enabled: true}
	ev := func(s Signal, d string) Event { return Event{Signal: s, At: date(d)} }
	if d := DecideRollback(c, up, []Event{ev(SignalRunFailed, "2026-06-21")}, date("2026-06-22"), RollbackPolicy{}); d.Rollback {
		t.Error("disabled policy rolled back")
	}
	d := DecideRollback(c, up, []Event{ev(SignalGovernanceFlag, "2026-06-21"), ev(SignalEvalFail, "2026-06-22"), ev(SignalRunFailed, "2026-06-21")}, date("2026-06-23"), on)
	if !d.Rollback || d.To != "acme_v2" || d.Trigger != SignalRunFailed {
		t.Errorf("default triggers: %+v", d)
	}
	// Flags are not a default trigger but can be configured.
	if d := DecideRollback(c, up, []Event{ev(SignalGovernanceFlag, "2026-06-21")}, date("2026-06-23"), on); d.Rollback {
		t.Errorf("flag triggered by default: %+v", d)
	}
	if d := DecideRollback(c, up, []Event{ev(SignalGovernanceFlag, "2026-06-21")}, date("2026-06-23"),
		RollbackPolicy{Enabled: true, Triggers: []Signal{SignalGovernanceFlag}}); !d.Rollback {
		t.Errorf("configured flag: %+v", d)
	}
	// Empty list: nothing triggers.
	if d := DecideRollback(c, up, []Event{ev(SignalRunFailed, "2026-06-21")}, date("2026-06-23"), RollbackPolicy{Enabled: true, Triggers: []Signal{}}); d.Rollback {
		t.Error("empty trigger list rolled back")
	}
	// Signals before the upgrade or after the window do not count.
	if d := DecideRollback(c, up, []Event{ev(SignalRunFailed, "2026-06-19"), ev(SignalRunFailed, "2026-07-01")}, date("2026-07-02"), on); d.Rollback {
		t.Errorf("out-of-window signals: %+v", d)
	}
	// Rolling back to a retired model is blocked.
	up1 := Upgrade{From: "acme_v1", To: "acme_v2", At: date("2026-06-25")}
	if d := DecideRollback(c, up1, []Event{ev(SignalRunFailed, "2026-07-01")}, date("2026-07-02"), on); d.Rollback || !d.Blocked {
		t.Errorf("rollback to retired model: %+v", d)
	}
	for _, s := range []string{"agent_eval_fail", "governance_flag", "governance_block", "agent_run_failed"} {
		if _, err := ParseSignal(s); err != nil {
			t.Error(err)
		}
	}
	if _, err := ParseSignal("bad"); err == nil {
		t.Error("bad signal accepted")
	}
}
