package store

import "encoding/json"

// ScheduleInput reads a schedule's run input from its extra keys, where
// an imported schedule's "input" is kept and the schedules extension
// writes it, so it travels with the schedule through export and import.
// Nil when the schedule has none. It is beside Schedule, which the agents
// area manages and the runs area's scheduler fires.
func ScheduleInput(extra json.RawMessage) *string {
	if len(extra) == 0 {
		return nil
	}
	var m struct {
		Input *string `json:"input"`
	}
	if json.Unmarshal(extra, &m) != nil {
		return nil
	}
	return m.Input
}
