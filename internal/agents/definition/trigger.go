package definition

// TriggerType is what starts an agent run.
type TriggerType string

// The trigger types of the API.
const (
	TriggerDynamicInput  TriggerType = "dynamic_input"
	TriggerTemplateInput TriggerType = "template_input"
	TriggerSchedule      TriggerType = "schedule"
	TriggerNewContent    TriggerType = "new_content"
	TriggerEmailReceived TriggerType = "email_received"
)

// DefaultTrigger is what POST /agents uses when neither the request nor an
// imported payload names a trigger.
const DefaultTrigger = TriggerDynamicInput

// TriggerTypes lists the trigger types in documentation order.
func TriggerTypes() []TriggerType {
	return []TriggerType{TriggerDynamicInput, TriggerTemplateInput, TriggerSchedule, TriggerNewContent, TriggerEmailReceived}
}

// Known reports whether t is one of the API's trigger types.
func (t TriggerType) Known() bool {
	for _, k := range TriggerTypes() {
		if t == k {
			return true
		}
	}
	return false
}

// Interactive reports whether a caller waits on the run through the API, the
// only case where streaming tokens has a reader.
func (t TriggerType) Interactive() bool {
	return t == TriggerDynamicInput || t == TriggerTemplateInput
}
