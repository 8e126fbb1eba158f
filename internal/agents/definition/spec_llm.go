package definition

// Model-facing step types.
func llmSpecs() []*StepSpec {
	return []*StepSpec{
		{
			Type:    StepPromptCall,
			Group:   "Language model",
			Summary: "Call a language model with a prompt template.",
			Doc:     "Renders `system_template` and `prompt_template` and sends them to `model`. The reply is the step output. When `simple_format` is false the model-specific `json_template` payload is sent instead of the two templates. A `streaming_result` child streams the reply token by token to interactive callers.",
			Fields: []Field{
				{Name: "model", Kind: KindString, Doc: "Model identifier from `GET /models` (e.g. `openai_gpt_4_1`). When absent the account's default model is used, which is reported as a warning."},
				{Name: "model_variant", Kind: KindString, Doc: "Variant tier of the model (`default`, `standard`, …) when the catalog offers several."},
				{Name: "prompt_template", Kind: KindTemplate, Doc: "User message. Required unless `json_template` is given."},
				{Name: "system_template", Kind: KindTemplate, Doc: "System message."},
				{Name: "simple_format", Kind: KindBoolean, Default: true, Doc: "Use the two templates (true) or the raw `json_template` payload (false)."},
				{Name: "json_template", Kind: KindAny, Doc: "Model-specific request payload (object, or a string holding JSON) following the model's `payload_schema`; its strings are templates."},
				{Name: "input_is_messages", Kind: KindBoolean, Default: false, Doc: "Treat the input as a JSON array of chat messages rather than text."},
				bounded(Field{Name: "temperature", Kind: KindNumber, Doc: "Sampling temperature."}, 0, 2),
				{Name: "max_tokens", Kind: KindInteger, Min: minOnly(1), Doc: "Upper bound on generated tokens."},
				{Name: "response_format", Kind: KindString, Enum: []string{"text", "json"}, Default: "text", Doc: "`json` asks the model for one JSON object (JSON mode) and marks the output `application/json`."},
				{Name: "thinking", Kind: KindString, Enum: []string{"off", "low", "medium", "high"}, Default: "off", Doc: "Lets a model with thinking (`supports_thinking` in `GET /models`) reason before it answers, with this much effort: a reasoning effort on OpenAI-compatible servers, a budget of 2,048, 8,000 or 16,000 thinking tokens on Anthropic. Reasoning tokens are billed as output; the reasoning is not part of the output."},
				{Name: "tools", Kind: KindTools, Doc: "Tools the model may call: names (`\"web_search\"`) or objects with a `type` (`{\"type\": \"retrieval\", \"knowledge_base_id\": \"…\"}`, `{\"type\": \"media_generation\", \"modality\": \"image\", \"tier\": \"fast\"}`). Extension: `{\"type\": \"mcp\", \"server_label\": \"…\", \"server_url\": \"https://…\", \"headers\": {\"Authorization\": \"Bearer {{secrets.NAME}}\"}}` offers the tools of an MCP server (see docs/mcp.md)."},
				{Name: "max_output_attachments", Kind: KindInteger, Min: minOnly(0), Doc: "Most files (generated media) the step may emit."},
				{Name: "max_output_total_bytes", Kind: KindInteger, Min: minOnly(0), Doc: "Byte budget for emitted files."},
			},
			rules: promptCallRules,
		},
		{
			Type:    StepStreamingResult,
			Group:   "Language model",
			Summary: "Stream the parent prompt_call's tokens to the caller in real time (SSE).",
			Doc:     "Must be a direct child of a `prompt_call` (its child_steps, not a branch) and needs a `dynamic_input` or `template_input` trigger. Tokens stream when the run is started with `priority: true`; otherwise the run still completes and the text becomes the output. No configuration; cannot have children.",
			Leaf:    true,
			rules:   streamingRules,
		},
		{
			Type:    StepExtractData,
			Group:   "Language model",
			Summary: "Progressively read and analyse input too large for one model call.",
			Doc:     "Splits the input into chunks of `chunk_size` characters and runs `prompt_template` over each in turn, carrying the findings so far; the output is the final accumulated answer.",
			Fields: []Field{
				{Name: "prompt_template", Kind: KindTemplate, Required: true, Doc: "What to extract or analyse; `{{input}}` is the current chunk and `{{findings}}` what earlier chunks produced."},
				{Name: "model", Kind: KindString, Doc: "Model identifier; the account default when absent."},
				bounded(Field{Name: "chunk_size", Kind: KindInteger, Default: 8000, Doc: "Characters per chunk."}, 500, 200000),
				bounded(Field{Name: "max_chunks", Kind: KindInteger, Default: 100, Doc: "Stop after this many chunks."}, 1, 1000),
				{Name: "output_format", Kind: KindString, Enum: []string{"text", "json"}, Default: "text", Doc: "Whether findings are kept as text or a JSON document."},
			},
		},
		{
			Type:    StepExtractContent,
			Group:   "Language model",
			Summary: "Extract structured data from JSON, HTML or XML input.",
			Doc:     "Selects part of the input: a JSONPath (`$.items[*].title`) for JSON, a CSS selector for HTML, an XPath for XML. The output is the match (the first, or all of them as a JSON array when `multiple`).",
			Fields: []Field{
				{Name: "format", Kind: KindString, Required: true, Enum: []string{"json", "html", "xml"}, Doc: "How to read the input."},
				{Name: "path", Kind: KindString, Required: true, Doc: "JSONPath (must start with `$`), CSS selector or XPath, by format."},
				{Name: "multiple", Kind: KindBoolean, Default: false, Doc: "Return every match as a JSON array instead of the first."},
				{Name: "default_value", Kind: KindString, Doc: "Output when nothing matches; without it a miss fails the step."},
			},
			rules: extractContentRules,
		},
		{
			Type:    StepEvaluateStep,
			Group:   "Language model",
			Summary: "Score a previous step's output and emit {score, passed, pass_threshold}.",
			Doc:     "Judges the output of `target_step_id` with `evaluation_prompt` and emits JSON `{\"score\": 0.82, \"passed\": true, \"pass_threshold\": 0.7}`; pair with a `gate` on `passed` and a `retry` for quality loops. The target must exist and should be an ancestor (a step that has already run).",
			Fields: []Field{
				{Name: "target_step_id", Kind: KindStepID, Required: true, Doc: "Step whose output is scored."},
				{Name: "evaluation_prompt", Kind: KindTemplate, Required: true, Doc: "What a good output looks like."},
				bounded(Field{Name: "pass_threshold", Kind: KindNumber, Required: true, Doc: "Score (0–1) at or above which the output passes."}, 0, 1),
				{Name: "evaluation_tier", Kind: KindString, Enum: []string{"fast", "balanced", "thorough"}, Doc: "Cost/quality tier of the judging model; the agent's default tier when absent."},
				{Name: "expectation_config", Kind: KindObject, Doc: "Structured expectations (same shape as evaluation criteria)."},
			},
			rules: evaluateStepRules,
		},
	}
}

func promptCallRules(c *checker, v Visit) {
	s := v.Step
	if _, ok := s.Config["model"]; !ok {
		c.warnf(CodeMissingModel, v.Path, "prompt_call has no model; the account's default model will be used")
	}
	_, hasPrompt := s.Config["prompt_template"]
	_, hasJSON := s.Config["json_template"]
	if !hasPrompt && !hasJSON {
		c.errorf(CodeMissingField, fieldPath(v.Path, "prompt_template"), "prompt_call needs prompt_template (or json_template)")
	}
	if simple, ok := s.Bool("simple_format"); ok && !simple && !hasJSON {
		c.errorf(CodeMissingField, fieldPath(v.Path, "json_template"), "simple_format is false, so json_template is required")
	}
	streams := 0
	for _, ch := range s.Children {
		if ch != nil && ch.Type == StepStreamingResult {
			streams++
		}
	}
	if streams > 1 {
		c.errorf(CodeStreamingPlacement, fieldPath(v.Path, keyChildSteps), "a prompt_call can have at most one streaming_result child, found %d", streams)
	}
}

func streamingRules(c *checker, v Visit) {
	if v.Parent == nil || v.Parent.Type != StepPromptCall || v.Relation != RelChild {
		c.errorf(CodeStreamingPlacement, v.Path, "streaming_result must be a direct child (child_steps) of a prompt_call")
	}
	if t := c.opts.Trigger; t != "" && !t.Interactive() {
		c.errorf(CodeStreamingTrigger, v.Path, "streaming_result needs a dynamic_input or template_input trigger, not %s", t)
	}
}

func extractContentRules(c *checker, v Visit) {
	format, _ := v.Step.String("format")
	path, ok := v.Step.String("path")
	if format == "json" && ok && path != "" && path[0] != '$' {
		c.errorf(CodeInvalidValue, fieldPath(v.Path, "path"), "a JSONPath must start with $")
	}
}

func evaluateStepRules(c *checker, v Visit) {
	target, ok := v.Step.String("target_step_id")
	if !ok || target == "" {
		return
	}
	p := fieldPath(v.Path, "target_step_id")
	switch {
	case target == v.Step.ID:
		c.errorf(CodeUnknownStepRef, p, "evaluate_step cannot score itself")
	case !c.hasStep(target):
		c.errorf(CodeUnknownStepRef, p, "no step has id %q", target)
	case !isAncestor(v, target):
		c.warnf(CodeNotAncestor, p, "step %q is not an ancestor of this step, so it may not have run yet", target)
	}
}
