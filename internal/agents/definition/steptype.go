package definition

// StepType names what a step does; it is the `step_type` field.
type StepType string

// The step types an agent definition may contain.
const (
	StepPromptCall             StepType = "prompt_call"
	StepStreamingResult        StepType = "streaming_result"
	StepText                   StepType = "text"
	StepRegexReplace           StepType = "regex_replace"
	StepGate                   StepType = "gate"
	StepRetry                  StepType = "retry"
	StepIfElse                 StepType = "if_else"
	StepSwitch                 StepType = "switch"
	StepForEach                StepType = "for_each"
	StepMerge                  StepType = "merge"
	StepJoin                   StepType = "join"
	StepDisplayResult          StepType = "display_result"
	StepExtractData            StepType = "extract_data"
	StepExtractContent         StepType = "extract_content"
	StepEvaluateStep           StepType = "evaluate_step"
	StepRetrieval              StepType = "retrieval"
	StepAddChatTurn            StepType = "add_chat_turn"
	StepLoadChatHistory        StepType = "load_chat_history"
	StepAddMemory              StepType = "add_memory"
	StepSearchMemory           StepType = "search_memory"
	StepLoadMemory             StepType = "load_memory"
	StepSendEmail              StepType = "send_email"
	StepWebhookCall            StepType = "webhook_call"
	StepWriteS3Object          StepType = "write_aws_s3_object"
	StepCallAgent              StepType = "call_agent"
	StepWriteMetadata          StepType = "write_metadata"
	StepWriteContentAttachment StepType = "write_content_attachment"
	StepLoadContentAttachment  StepType = "load_content_attachment"
	StepLoadContent            StepType = "load_content"
	StepHumanInTheLoop         StepType = "human_in_the_loop"
)

// StepTypes lists every known step type in documentation order.
func StepTypes() []StepType {
	out := make([]StepType, len(specList))
	for i, s := range specList {
		out[i] = s.Type
	}
	return out
}

// Known reports whether t is a step type this package understands.
func (t StepType) Known() bool {
	_, ok := specs[t]
	return ok
}

// AllowsChildren reports whether a step of this type may have child_steps.
// The four leaf types end a chain: their output is final (display_result,
// streaming_result, join) or they jump elsewhere (retry).
func (t StepType) AllowsChildren() bool {
	s, ok := specs[t]
	return !ok || !s.Leaf
}

// ContentOnly reports whether the type only works on content-triggered
// (new_content) agents because it reads or writes the triggering content.
func (t StepType) ContentOnly() bool {
	s, ok := specs[t]
	return ok && s.ContentOnly
}

// Subtree keys are the JSON keys holding nested step lists.
const (
	keyChildSteps = "child_steps"
	keyThenSteps  = "then_steps"
	keyElseSteps  = "else_steps"
	keyCases      = "cases"
	keyBody       = "body"
	keyCaseSteps  = "steps"
	keyCaseMatch  = "match"
)
