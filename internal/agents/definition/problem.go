package definition

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/agentry/agentry/internal/agents/definition/canonjson"
)

// Severity separates what blocks a save from what only deserves a look.
type Severity string

// Errors make a definition unusable; warnings flag shapes that run but are
// probably not what the author meant.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// Code is a stable machine-readable problem kind, for clients and tests.
type Code string

// Problem codes. Errors unless marked (w).
const (
	CodeInvalidJSON        Code = "invalid_json"
	CodeDuplicateKey       Code = "duplicate_key" // (w)
	CodeInvalidType        Code = "invalid_type"
	CodeMissingField       Code = "missing_field"
	CodeUnknownField       Code = "unknown_field" // (w)
	CodeInvalidValue       Code = "invalid_value"
	CodeOutOfRange         Code = "out_of_range"
	CodeUnknownStepType    Code = "unknown_step_type"
	CodeDuplicateStepID    Code = "duplicate_step_id"
	CodeChildrenNotAllowed Code = "children_not_allowed"
	CodeSubtreeNotAllowed  Code = "subtree_not_allowed"
	CodeStreamingPlacement Code = "streaming_placement"
	CodeStreamingTrigger   Code = "streaming_trigger"
	CodeNotAllowedInBranch Code = "not_allowed_in_branch"
	CodeContentTrigger     Code = "content_trigger_required"
	CodeRetryTarget        Code = "retry_target"
	CodeUnknownStepRef     Code = "unknown_step_ref"
	CodeUnresolvedRef      Code = "unresolved_ref"
	CodeSelfCall           Code = "self_call"
	CodeDisabledAgent      Code = "disabled_agent"
	CodeTooDeep            Code = "too_deep"
	CodeInvalidRegex       Code = "invalid_regex"
	CodeInvalidPayload     Code = "invalid_payload"
	CodeLiteralCredential  Code = "literal_credential"
	CodeServerCredentials  Code = "server_credentials"
	CodeEmptyWorkflow      Code = "empty_workflow"       // (w)
	CodeMissingName        Code = "missing_name"         // (w)
	CodeMissingModel       Code = "missing_model"        // (w)
	CodePassThrough        Code = "pass_through"         // (w)
	CodeUnconditionalRetry Code = "unconditional_retry"  // (w)
	CodeNotAncestor        Code = "not_ancestor"         // (w)
	CodeUnsupportedVersion Code = "unsupported_version"  // (w)
	CodeInvalidSelector    Code = "invalid_selector"     // (w)
	CodeInsecureURL        Code = "insecure_url"         // (w)
	CodePlaceholder        Code = "placeholder"          // (w)
	CodeInlineSecret       Code = "inline_secret"        // (w)
	CodeEmptyBranch        Code = "empty_branch"         // (w)
	CodeUnreachableCase    Code = "unreachable_case"     // (w)
	CodeDynamicRef         Code = "dynamic_ref"          // (w)
	CodeLegacyKey          Code = "legacy_key"           // (w)
	CodeOutputInLoop       Code = "output_in_loop"       // (w)
	CodeUselessJoin        Code = "useless_join"         // (w)
	CodeUnusedValue        Code = "unused_value"         // (w)
	CodeTriggerIncomplete  Code = "trigger_incomplete"   // (w)
	CodeMultipleStreaming  Code = "multiple_streaming"   // (w)
	CodeUnusualIdentifier  Code = "unusual_identifier"   // (w)
	CodeSecretPlacement    Code = "secret_placement"     // (w)
	CodeUnknownModel       Code = "unknown_model"        // (w)
	CodeUnclosedTemplate   Code = "unclosed_placeholder" // (w)
)

// Problem is one finding about a payload. Path is the dotted path of the
// offending value (`agent.definition.child_steps[0].model`); Line and Column
// are filled in by Import from the canonical echo (0 when not positioned).
type Problem struct {
	Severity Severity `json:"severity"`
	Code     Code     `json:"code"`
	Path     string   `json:"path"`
	Message  string   `json:"message"`
	Line     int      `json:"line,omitempty"`
	Column   int      `json:"column,omitempty"`
}

func (p Problem) Error() string {
	where := p.Path
	if where == "" {
		where = "(root)"
	}
	if p.Line > 0 {
		return fmt.Sprintf("%s (line %d, column %d): %s", where, p.Line, p.Column, p.Message)
	}
	return where + ": " + p.Message
}

// Loc splits Path into the segments of a 422 `detail[].loc` array: keys as
// strings, indexes as ints.
func (p Problem) Loc() []any {
	segs, err := canonjson.Split(p.Path)
	if err != nil {
		return []any{p.Path}
	}
	out := make([]any, len(segs))
	for i, s := range segs {
		if s.IsIndex {
			out[i] = s.Index
		} else {
			out[i] = s.Key
		}
	}
	return out
}

// WarningMap renders the problem as one element of the string-to-string
// `warnings` array of AgentDefinitionResponse.
func (p Problem) WarningMap() map[string]string {
	m := map[string]string{"code": string(p.Code), "path": p.Path, "message": p.Message, "severity": string(p.Severity)}
	if p.Line > 0 {
		m["line"] = strconv.Itoa(p.Line)
		m["column"] = strconv.Itoa(p.Column)
	}
	return m
}

// Problems is a list of findings.
type Problems []Problem

func (ps *Problems) add(sev Severity, code Code, path, format string, args ...any) {
	*ps = append(*ps, Problem{Severity: sev, Code: code, Path: path, Message: fmt.Sprintf(format, args...)})
}

func (ps *Problems) errorf(code Code, path, format string, args ...any) {
	ps.add(SeverityError, code, path, format, args...)
}

func (ps *Problems) warnf(code Code, path, format string, args ...any) {
	ps.add(SeverityWarning, code, path, format, args...)
}

// Errors returns the problems that block saving.
func (ps Problems) Errors() Problems { return ps.filter(SeverityError) }

// Warnings returns the problems that do not block saving.
func (ps Problems) Warnings() Problems { return ps.filter(SeverityWarning) }

// HasErrors reports whether any problem is an error.
func (ps Problems) HasErrors() bool { return len(ps.Errors()) > 0 }

func (ps Problems) filter(sev Severity) Problems {
	var out Problems
	for _, p := range ps {
		if p.Severity == sev {
			out = append(out, p)
		}
	}
	return out
}

// Position fills Line and Column of every problem from the index of a
// canonical echo (problems whose path is absent take their nearest
// ancestor's position) and sorts them by position, then path, so that the
// same payload always yields the same list.
func (ps Problems) Position(ix canonjson.Positions) {
	for i := range ps {
		pos, _ := ix.Lookup(ps[i].Path)
		ps[i].Line, ps[i].Column = pos.Line, pos.Column
	}
	ps.Sort()
}

// Sort orders problems by line, column, path, severity and message.
func (ps Problems) Sort() {
	sort.SliceStable(ps, func(i, j int) bool {
		a, b := ps[i], ps[j]
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Column != b.Column {
			return a.Column < b.Column
		}
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Severity != b.Severity {
			return a.Severity < b.Severity
		}
		return a.Message < b.Message
	})
}
