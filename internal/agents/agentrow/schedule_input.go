package agentrow

import "encoding/json"

// ScheduleInput reads a schedule's run input from its extra keys, where
// an imported schedule's "input" is kept and the schedules extension
// writes it, so it travels with the schedule through export and import.
// Nil when the schedule has none. It is here, not in the agents service
// that manages schedules, because the runs area's scheduler fires them
// and may not import that service.
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
