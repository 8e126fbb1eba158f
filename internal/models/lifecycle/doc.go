// Package lifecycle decides, from the catalog and a point in time, where a
// model stands (active, deprecated, nearing sunset, sunset), which alerts
// that warrants, whether an agent's auto-upgrade strategy moves it to a
// newer model, and whether failures after an upgrade roll it back. Every
// function is pure: no clock, no storage. Callers (the alert sweep, the
// agent runner) pass "now" and persist what they decide.
package lifecycle
