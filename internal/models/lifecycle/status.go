package lifecycle

import (
	"fmt"
	"math"
	"time"

	"github.com/agentry/agentry/internal/models/catalog"
)

// State is where a model is in its life.
type State string

// States, in order of urgency.
const (
	StateActive        State = "active"
	StateDeprecated    State = "deprecated"     // replacement advised; still served
	StateNearingSunset State = "nearing_sunset" // retirement within the warning window
	StateSunset        State = "sunset"         // retired: calls fail
)

// Policy holds the tunable windows.
type Policy struct {
	// SunsetWarning is how long before a sunset date a model counts as
	// nearing sunset (default 30 days).
	SunsetWarning time.Duration
	// SettlePeriod is how long a new model must have been released before
	// the middle-of-road strategy adopts it (default 30 days).
	SettlePeriod time.Duration
	// CautiousWindow is how long before sunset the cautious strategy
	// finally moves (default 30 days).
	CautiousWindow time.Duration
	// Excluded models are never upgrade targets: typically the ones an
	// agent was rolled back from.
	Excluded []string
}

// Defaults for Policy's zero fields.
const (
	DefaultSunsetWarning  = 30 * 24 * time.Hour
	DefaultSettlePeriod   = 30 * 24 * time.Hour
	DefaultCautiousWindow = 30 * 24 * time.Hour
)

func (p Policy) withDefaults() Policy {
	if p.SunsetWarning <= 0 {
		p.SunsetWarning = DefaultSunsetWarning
	}
	if p.SettlePeriod <= 0 {
		p.SettlePeriod = DefaultSettlePeriod
	}
	if p.CautiousWindow <= 0 {
		p.CautiousWindow = DefaultCautiousWindow
	}
	return p
}

// Status describes a model at a moment.
type Status struct {
	ModelID      string     `json:"model_id"`
	State        State      `json:"state"`
	DeprecatedAt *time.Time `json:"deprecated_at,omitempty"`
	SunsetAt     *time.Time `json:"sunset_at,omitempty"`
	// DaysUntilSunset is rounded up (a sunset tomorrow at noon is 1 day
	// away); negative once retired; nil without a sunset date.
	DaysUntilSunset *int   `json:"days_until_sunset,omitempty"`
	SuccessorID     string `json:"successor_id,omitempty"`
}

// Evaluate returns the status of m at now.
func Evaluate(m catalog.Model, now time.Time, p Policy) Status {
	p = p.withDefaults()
	st := Status{ModelID: m.ID, State: StateActive, SuccessorID: m.SuccessorID}
	if m.DeprecatedAt != nil {
		t := m.DeprecatedAt.Time
		st.DeprecatedAt = &t
	}
	if m.SunsetAt != nil {
		t := m.SunsetAt.Time
		st.SunsetAt = &t
		days := int(math.Ceil(t.Sub(now).Hours() / 24))
		st.DaysUntilSunset = &days
	}
	switch {
	case m.IsSunset(now):
		st.State = StateSunset
	case m.SunsetAt != nil && m.SunsetAt.Sub(now) <= p.SunsetWarning:
		st.State = StateNearingSunset
	case m.IsDeprecated(now):
		st.State = StateDeprecated
	}
	return st
}

// AlertType names the model alerts of the platform's alert configuration.
type AlertType string

// Alert types.
const (
	AlertDeprecated     AlertType = "model_deprecated"
	AlertSunset         AlertType = "model_sunset"
	AlertNewerAvailable AlertType = "model_newer_available"
)

// Alert is an alert to raise for a model in use.
type Alert struct {
	Type          AlertType `json:"alert_type"`
	ModelID       string    `json:"prompt_model_id"`
	ModelName     string    `json:"model_name"`
	SuccessorID   string    `json:"successor_model_id,omitempty"`
	SuccessorName string    `json:"successor_model_name,omitempty"`
	Message       string    `json:"message"`
	// Key identifies the alert's substance; the alert store raises an
	// alert once per key and account (and agent), so re-running the
	// sweep does not repeat it. It changes when the facts do (a new
	// sunset date, a different replacement, the step to "retired").
	Key string `json:"key"`
}

// Alerts returns the alerts model id warrants at now: at most one of
// model_sunset (retired, or retiring within the warning window) and
// model_deprecated, naming the replacement the catalog recommends; or,
// for a model in good standing, model_newer_available when a newer model
// of its family is out.
func Alerts(cat *catalog.Catalog, id string, now time.Time, p Policy) ([]Alert, error) {
	m, ok := cat.Get(id)
	if !ok {
		return nil, fmt.Errorf("%w: %s", catalog.ErrUnknownModel, id)
	}
	st := Evaluate(m, now, p)
	repl, hasRepl := replacement(cat, m, now)
	a := Alert{ModelID: m.ID, ModelName: m.Name}
	if hasRepl {
		a.SuccessorID, a.SuccessorName = repl.ID, repl.Name
	}
	switchTo := ""
	if hasRepl {
		switchTo = fmt.Sprintf(" Switch to %s.", repl.Name)
	}
	switch st.State {
	case StateSunset:
		a.Type = AlertSunset
		a.Message = fmt.Sprintf("%s was retired on %s; calls to it fail.%s", m.Name, day(*st.SunsetAt), switchTo)
		a.Key = key(a.Type, m.ID, "retired", day(*st.SunsetAt), a.SuccessorID)
	case StateNearingSunset:
		a.Type = AlertSunset
		a.Message = fmt.Sprintf("%s will be retired on %s (%s).%s", m.Name, day(*st.SunsetAt), inDays(*st.DaysUntilSunset), switchTo)
		a.Key = key(a.Type, m.ID, "nearing", day(*st.SunsetAt), a.SuccessorID)
	case StateDeprecated:
		a.Type = AlertDeprecated
		when := ""
		if st.SunsetAt != nil {
			when = fmt.Sprintf(" and will be retired on %s", day(*st.SunsetAt))
		}
		a.Message = fmt.Sprintf("%s is deprecated%s.%s", m.Name, when, switchTo)
		sunset := ""
		if st.SunsetAt != nil {
			sunset = day(*st.SunsetAt)
		}
		a.Key = key(a.Type, m.ID, sunset, a.SuccessorID)
	default:
		ups := cat.Upgrades(m.ID, now)
		for _, u := range ups {
			if u.Enabled && !u.IsDeprecated(now) && (u.ReleasedAt == nil || !u.ReleasedAt.After(now)) {
				return []Alert{{Type: AlertNewerAvailable, ModelID: m.ID, ModelName: m.Name, SuccessorID: u.ID, SuccessorName: u.Name,
					Message: fmt.Sprintf("%s, a newer model in the %s family, is available.", u.Name, m.Family),
					Key:     key(AlertNewerAvailable, m.ID, u.ID)}}, nil
			}
		}
		return nil, nil
	}
	return []Alert{a}, nil
}

// replacement is the model to suggest instead of m: the designated
// successor if it is usable, else the newest usable model of the family.
func replacement(cat *catalog.Catalog, m catalog.Model, now time.Time) (catalog.Model, bool) {
	if s, ok := cat.ResolveSuccessor(m.ID, now); ok && !s.IsDeprecated(now) {
		return s, true
	}
	for _, u := range cat.Upgrades(m.ID, now) {
		if !u.IsDeprecated(now) {
			return u, true
		}
	}
	return catalog.Model{}, false
}

func key(parts ...any) string {
	s := ""
	for i, p := range parts {
		if i > 0 {
			s += "|"
		}
		s += fmt.Sprint(p)
	}
	return s
}

func day(t time.Time) string { return t.UTC().Format(time.DateOnly) }

func inDays(n int) string {
	switch {
	case n <= 0:
		return "today"
	case n == 1:
		return "in 1 day"
	}
	return fmt.Sprintf("in %d days", n)
}
