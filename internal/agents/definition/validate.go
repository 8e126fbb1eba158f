package definition

import (
	"context"
	"fmt"
	"strings"
	"unicode"
)

// ValidateOptions carries what validation needs to know about the agent.
type ValidateOptions struct {
	// Trigger is the agent's trigger type. Rules that depend on it
	// (streaming_result, content steps) are skipped when it is empty.
	Trigger TriggerType
	// AgentID is the id of the agent being saved, so that a call_agent step
	// calling it is refused. Empty for a new agent.
	AgentID string
	// Resolver checks that referenced entities exist; nil skips the check.
	Resolver Resolver
	// BasePath is the path of the definition inside the payload: "" for a
	// bare definition, "agent.definition" for an export.
	BasePath string
	// CollectUnresolved reports entities the Resolver does not find in
	// Report.Unresolved instead of as errors (preview-import).
	CollectUnresolved bool
	// ServerRules are the operator's settings the checks depend on.
	ServerRules
}

// ServerRules are what a definition is checked against that the operator,
// not the definition, decides; saving, importing and previewing all pass
// the same.
type ServerRules struct {
	// S3AllowedBuckets are the buckets a write_aws_s3_object step may write
	// with the server's own credentials (SERVICE_S3_ALLOWED_BUCKETS); any
	// other bucket needs credentials from the account's secrets.
	S3AllowedBuckets []string
	// KnownModel reports whether a model id (or provider name) is in the
	// model catalog; a step naming one that is not is warned about. Nil
	// skips the check.
	KnownModel func(id string) bool
}

// Report is the outcome of Validate.
type Report struct {
	Problems   Problems
	Unresolved []Ref // every reference the Resolver did not find
}

// OK reports whether the definition can be saved.
func (r Report) OK() bool { return !r.Problems.HasErrors() }

// Validate checks a definition against the structural rules of the format
// and the configuration spec of each step type. Errors make it unusable;
// warnings flag shapes that run but are probably mistakes. The only error
// returned is the Resolver's (the store could not answer): bad input never
// yields an error, only problems.
func Validate(ctx context.Context, d *Definition, opts ValidateOptions) (Report, error) {
	c := &checker{ctx: ctx, opts: opts, def: d, firstID: map[string]string{}}
	if d == nil {
		c.errorf(CodeInvalidType, opts.BasePath, "the definition is missing")
		return Report{Problems: c.probs}, nil
	}
	c.collectIDs()
	if len(d.Steps) == 0 {
		c.warnf(CodeEmptyWorkflow, c.stepsPath(), "the workflow has no steps; runs produce no output")
	}
	streaming := 0
	d.Walk(opts.BasePath, func(v Visit) bool {
		c.checkStep(v)
		if v.Step.Type == StepStreamingResult {
			streaming++
		}
		return true
	})
	if streaming > 1 {
		c.warnf(CodeMultipleStreaming, c.stepsPath(), "%d streaming_result steps; tokens of parallel model calls interleave in one stream", streaming)
	}
	c.checkTemplates()
	c.checkModels()
	if err := c.checkRefs(); err != nil {
		return Report{}, err
	}
	return Report{Problems: c.probs, Unresolved: c.unresolved}, nil
}

type checker struct {
	ctx        context.Context
	opts       ValidateOptions
	def        *Definition
	probs      Problems
	firstID    map[string]string // step id -> path of its first use
	unresolved []Ref
}

func (c *checker) errorf(code Code, path, format string, args ...any) {
	c.probs.errorf(code, path, format, args...)
}

func (c *checker) warnf(code Code, path, format string, args ...any) {
	c.probs.warnf(code, path, format, args...)
}

func (c *checker) stepsPath() string {
	key := c.def.stepsKey
	if key == "" {
		key = keyChildSteps
	}
	return fieldPath(c.opts.BasePath, key)
}

func (c *checker) hasStep(id string) bool {
	_, ok := c.firstID[id]
	return ok
}

func (c *checker) collectIDs() {
	c.def.Walk(c.opts.BasePath, func(v Visit) bool {
		id := v.Step.ID
		if id == "" {
			return true
		}
		if first, dup := c.firstID[id]; dup {
			c.errorf(CodeDuplicateStepID, fieldPath(v.Path, "id"), "step id %q is already used at %s", id, first)
			return true
		}
		c.firstID[id] = v.Path
		return true
	})
}

// maxIDLength matches the longest step id evaluation criteria accept.
const maxIDLength = 255

func (c *checker) checkStep(v Visit) {
	s := v.Step
	idPath := fieldPath(v.Path, "id")
	switch {
	case s.badID:
		// reported while decoding
	case strings.TrimSpace(s.ID) == "":
		c.errorf(CodeMissingField, idPath, "every step needs a non-empty id")
	case len(s.ID) > maxIDLength:
		c.errorf(CodeOutOfRange, idPath, "id is longer than %d characters", maxIDLength)
	case !plainIdentifier(s.ID):
		c.warnf(CodeUnusualIdentifier, idPath, "id %q has characters other than letters, digits, - and _; {{step.<id>…}} references to it may not parse", s.ID)
	}
	if s.Name == "" {
		c.warnf(CodeMissingName, v.Path, "step has no name")
	}
	if s.Type == "" {
		if !s.badType {
			c.errorf(CodeMissingField, fieldPath(v.Path, "step_type"), "every step needs a step_type")
		}
		return
	}
	spec, known := specs[s.Type]
	if !known {
		msg := fmt.Sprintf("unknown step_type %q", s.Type)
		if best := closestStepType(string(s.Type)); best != "" {
			msg += fmt.Sprintf(" (did you mean %s?)", best)
		}
		c.errorf(CodeUnknownStepType, fieldPath(v.Path, "step_type"), "%s", msg)
		return
	}
	if spec.Leaf && len(s.Children) > 0 {
		c.errorf(CodeChildrenNotAllowed, fieldPath(v.Path, keyChildSteps), "%s steps cannot have child steps", s.Type)
	}
	c.checkSubtrees(v, spec)
	if spec.ContentOnly && c.opts.Trigger != "" && c.opts.Trigger != TriggerNewContent {
		c.errorf(CodeContentTrigger, v.Path, "%s only works on content-triggered (new_content) agents, not %s", s.Type, c.opts.Trigger)
	}
	if s.Type == StepDisplayResult || s.Type == StepStreamingResult {
		switch {
		case v.InBranch:
			c.errorf(CodeNotAllowedInBranch, v.Path, "%s is not allowed inside if_else or switch branches; end the branch with a content-producing step and put it in the branching step's child_steps", s.Type)
		case v.InBody:
			c.warnf(CodeOutputInLoop, v.Path, "%s inside a for_each body runs once per item", s.Type)
		}
	}
	c.checkFields(v, spec)
	if spec.rules != nil {
		spec.rules(c, v)
	}
}

func (c *checker) checkSubtrees(v Visit, spec *StepSpec) {
	s := v.Step
	present := map[string]bool{
		keyThenSteps: s.Then != nil,
		keyElseSteps: s.Else != nil,
		keyCases:     s.Cases != nil,
		keyBody:      s.Body != nil,
	}
	for _, key := range []string{keyThenSteps, keyElseSteps, keyCases, keyBody} {
		if present[key] && !contains(spec.Subtrees, key) {
			c.errorf(CodeSubtreeNotAllowed, fieldPath(v.Path, key), "%s is not allowed on %s steps", key, s.Type)
		}
	}
	for _, f := range spec.Fields {
		if (f.Kind == KindSteps || f.Kind == KindCases) && f.Required && !present[f.Name] {
			c.errorf(CodeMissingField, fieldPath(v.Path, f.Name), "%s steps need %s", s.Type, f.Name)
		}
	}
}

var commonFieldNames = func() map[string]bool {
	m := map[string]bool{}
	for _, f := range CommonFields {
		m[f.Name] = true
	}
	return m
}()

func (c *checker) checkFields(v Visit, spec *StepSpec) {
	s := v.Step
	known := map[string]bool{}
	for _, f := range spec.Fields {
		known[f.Name] = true
		if f.Kind == KindSteps || f.Kind == KindCases {
			continue
		}
		p := fieldPath(v.Path, f.Name)
		val, ok := s.Config[f.Name]
		if !ok || val == nil {
			if f.Required {
				c.errorf(CodeMissingField, p, "%s steps need %s", s.Type, f.Name)
			}
			continue
		}
		c.checkValue(f, val, p)
	}
	if p, ok := s.Config["purpose"]; ok && p != nil {
		if _, isStr := p.(string); !isStr {
			c.errorf(CodeInvalidType, fieldPath(v.Path, "purpose"), "purpose must be a string")
		}
	}
	for k := range s.Config {
		if !known[k] && !commonFieldNames[k] {
			c.warnf(CodeUnknownField, fieldPath(v.Path, k), "unknown %s field %q is kept but not used", s.Type, k)
		}
	}
}

// checkValue checks one present, non-null field value against its spec.
func (c *checker) checkValue(f Field, val any, p string) {
	typeErr := func(what string) { c.errorf(CodeInvalidType, p, "%s must be %s", f.Name, what) }
	switch f.Kind {
	case KindString, KindTemplate, KindStepID, KindRef:
		s, ok := val.(string)
		if !ok {
			typeErr("a string")
			return
		}
		if (f.Required || f.Kind == KindRef || f.Kind == KindStepID) && strings.TrimSpace(s) == "" {
			c.errorf(CodeInvalidValue, p, "%s must not be empty", f.Name)
			return
		}
		if len(f.Enum) > 0 && !contains(f.Enum, s) {
			c.errorf(CodeInvalidValue, p, "%s must be one of %s, not %q", f.Name, strings.Join(f.Enum, ", "), s)
		}
	case KindInteger, KindNumber:
		n, ok := toFloat(val)
		if !ok {
			typeErr("a number")
			return
		}
		if f.Kind == KindInteger && n != float64(int64(n)) {
			typeErr("a whole number")
			return
		}
		if (f.Min != nil && n < *f.Min) || (f.Max != nil && n > *f.Max) {
			c.errorf(CodeOutOfRange, p, "%s must be %s, not %v", f.Name, rangeText(f), n)
		}
	case KindBoolean:
		if _, ok := val.(bool); !ok {
			typeErr("true or false")
		}
	case KindObject:
		if _, ok := val.(map[string]any); !ok {
			typeErr("an object")
		}
	case KindAny:
	case KindStringList, KindRefList:
		c.checkStringList(f, val, p)
	case KindStringOrList:
		if _, ok := val.(string); !ok {
			c.checkStringList(f, val, p)
		}
	case KindConditions:
		checkConditions(c, val, p)
	case KindRegexRules:
		checkRegexRules(c, val, p)
	case KindTools:
		checkTools(c, val, p)
	}
	if f.check != nil && !c.lastIsErrorAt(p) {
		f.check(c, val, p)
	}
}

func (c *checker) checkStringList(f Field, val any, p string) {
	list, ok := val.([]any)
	if !ok {
		c.errorf(CodeInvalidType, p, "%s must be a list of strings", f.Name)
		return
	}
	for i, e := range list {
		s, ok := e.(string)
		if !ok {
			c.errorf(CodeInvalidType, indexPath(p, i), "%s must contain only strings", f.Name)
			continue
		}
		if f.Kind == KindRefList && strings.TrimSpace(s) == "" {
			c.errorf(CodeInvalidValue, indexPath(p, i), "ids must not be empty")
		}
	}
}

func (c *checker) lastIsErrorAt(p string) bool {
	if len(c.probs) == 0 {
		return false
	}
	last := c.probs[len(c.probs)-1]
	return last.Severity == SeverityError && last.Path == p
}

func rangeText(f Field) string {
	switch {
	case f.Min != nil && f.Max != nil:
		return fmt.Sprintf("between %v and %v", *f.Min, *f.Max)
	case f.Min != nil:
		return fmt.Sprintf("at least %v", *f.Min)
	default:
		return fmt.Sprintf("at most %v", *f.Max)
	}
}

func plainIdentifier(s string) bool {
	for _, r := range s {
		if !(r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return false
		}
	}
	return true
}

func isAncestor(v Visit, id string) bool {
	for _, a := range v.Ancestors {
		if a.ID == id {
			return true
		}
	}
	return false
}

// closestStepType suggests a known type for a misspelt one.
func closestStepType(t string) string {
	best, bestScore := "", 0.6
	for _, s := range specList {
		if sc := Similarity(t, string(s.Type)); sc > bestScore {
			best, bestScore = string(s.Type), sc
		}
	}
	return best
}

// checkRefs asks the Resolver about every literal reference once.
// checkPaused refuses a call_agent target that exists but is paused.
func (c *checker) checkPaused(r Ref) error {
	states, ok := c.opts.Resolver.(AgentStates)
	if !ok || r.Kind != RefAgent || !c.callTarget(r.Path) {
		return nil
	}
	paused, err := states.AgentPaused(c.ctx, r.ID)
	if err != nil {
		return fmt.Errorf("checking agent %s: %w", r.ID, err)
	}
	if paused {
		c.errorf(CodeDisabledAgent, r.Path, "agent %s is paused (disabled); enable it to call it", r.ID)
	}
	return nil
}

// callTarget reports whether path is the agent_id of a call_agent step.
func (c *checker) callTarget(path string) bool {
	found := false
	c.def.Walk(c.opts.BasePath, func(v Visit) bool {
		if v.Step.Type == StepCallAgent && fieldPath(v.Path, "agent_id") == path {
			found = true
		}
		return !found
	})
	return found
}

func (c *checker) checkRefs() error {
	var slots []Ref
	c.def.scanRefs(c.opts.BasePath, func(s refSlot, dynamic bool) {
		if dynamic {
			c.warnf(CodeDynamicRef, s.Path, "%s id is computed at run time and cannot be checked now", s.Kind)
			return
		}
		slots = append(slots, s.Ref)
	})
	if c.opts.Resolver == nil {
		return nil
	}
	exists := map[Ref]bool{}
	for _, r := range slots {
		key := Ref{Kind: r.Kind, ID: r.ID}
		ok, asked := exists[key]
		if !asked {
			var err error
			ok, err = c.opts.Resolver.Exists(c.ctx, r.Kind, r.ID)
			if err != nil {
				return fmt.Errorf("checking %s %s: %w", r.Kind, r.ID, err)
			}
			exists[key] = ok
		}
		if ok {
			if err := c.checkPaused(r); err != nil {
				return err
			}
			continue
		}
		c.unresolved = append(c.unresolved, r)
		if !c.opts.CollectUnresolved {
			c.errorf(CodeUnresolvedRef, r.Path, "%s %s does not exist in this account", strings.ReplaceAll(string(r.Kind), "_", " "), r.ID)
		}
	}
	return nil
}
