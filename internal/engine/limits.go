package engine

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
)

// Limits bound what one run may cost the process, so that one tenant's
// workflow cannot starve the others of memory or CPU. They are enforced
// while output is produced (templates, regex_replace, loop outputs stop
// growing at the cap), not by measuring a finished value.
type Limits struct {
	// MaxStepOutputBytes bounds the output of one step, and of any one
	// template a step renders.
	MaxStepOutputBytes int64
	// MaxRunOutputBytes bounds the sum of the outputs of every step a run
	// executes: what its journal stores.
	MaxRunOutputBytes int64
	// MaxStepsPerRun bounds the steps a run executes, counting every
	// for_each item's steps, steps run again by retry, and attempts.
	MaxStepsPerRun int
}

// Default limits. 1 MiB of step output is about 250k tokens, more than any
// model context takes in one prompt, and far above what flow and text steps
// produce; 10 MiB per run lets ten such steps be kept in the journal, which
// is stored row by row; 10,000 steps is a for_each of 1,000 items (the most
// a definition may ask) over a ten-step body, and keeps a run's event
// stream to about 20,000 events.
const (
	DefaultMaxStepOutputBytes = 1 << 20
	DefaultMaxRunOutputBytes  = 10 << 20
	DefaultMaxStepsPerRun     = 10_000
)

// maxForEachItems bounds the items of one for_each whatever its
// definition says (definitions are validated to the same bound when saved).
const maxForEachItems = 1000

// DefaultLimits returns the limits an engine starts with.
func DefaultLimits() Limits {
	return Limits{MaxStepOutputBytes: DefaultMaxStepOutputBytes, MaxRunOutputBytes: DefaultMaxRunOutputBytes,
		MaxStepsPerRun: DefaultMaxStepsPerRun}
}

// withDefaults fills unset (zero or negative) limits with the defaults.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.MaxStepOutputBytes <= 0 {
		l.MaxStepOutputBytes = d.MaxStepOutputBytes
	}
	if l.MaxRunOutputBytes <= 0 {
		l.MaxRunOutputBytes = d.MaxRunOutputBytes
	}
	if l.MaxStepsPerRun <= 0 {
		l.MaxStepsPerRun = d.MaxStepsPerRun
	}
	return l
}

// ErrLimitExceeded is matched (errors.Is) by every LimitError.
var ErrLimitExceeded = errors.New("limit exceeded")

// LimitError is a run or step that went past one of the engine's limits.
type LimitError struct {
	What    string // "output", "run output", "rule 2 …": what went over
	Max     int64
	Unit    string // "bytes" or "steps"
	Setting string // the configuration that sets the limit
	// Possible says the limit was refused on a worst-case estimate.
	Possible bool
}

func (e *LimitError) Error() string {
	amount := fmt.Sprintf("%d-step", e.Max)
	if e.Unit == "bytes" {
		amount = formatBytes(e.Max)
	}
	verb := "exceeds"
	if e.Possible {
		verb = "could exceed"
	}
	return fmt.Sprintf("%s %s the %s limit (%s)", e.What, verb, amount, e.Setting)
}

// Is makes errors.Is(err, ErrLimitExceeded) hold.
func (e *LimitError) Is(target error) bool { return target == ErrLimitExceeded }

// Settings naming each limit in errors, so an operator knows what to raise.
const (
	settingStepOutput = "SERVICE_MAX_STEP_OUTPUT_BYTES"
	settingRunOutput  = "SERVICE_MAX_RUN_OUTPUT_BYTES"
	settingSteps      = "SERVICE_MAX_STEPS_PER_RUN"
)

func stepOutputError(what string, max int64) *LimitError {
	return &LimitError{What: what, Max: max, Unit: "bytes", Setting: settingStepOutput}
}

func formatBytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d-byte", n)
}

// runBudget counts what a run has used against its limits. It is shared
// by the parallel branches of one execution.
type runBudget struct {
	limits      Limits
	steps       atomic.Int64
	outputBytes atomic.Int64
}

// step counts one step execution and fails once the run is past its limit.
func (b *runBudget) step() error {
	if n := b.steps.Add(1); n > int64(b.limits.MaxStepsPerRun) {
		return &LimitError{What: "the run", Max: int64(b.limits.MaxStepsPerRun), Unit: "steps", Setting: settingSteps}
	}
	return nil
}

// output checks a step's output against the step limit and adds it to the
// run's total.
func (b *runBudget) output(out string) error {
	if int64(len(out)) > b.limits.MaxStepOutputBytes {
		return stepOutputError("output", b.limits.MaxStepOutputBytes)
	}
	if n := b.outputBytes.Add(int64(len(out))); n > b.limits.MaxRunOutputBytes {
		return &LimitError{What: "the run's total output", Max: b.limits.MaxRunOutputBytes, Unit: "bytes", Setting: settingRunOutput}
	}
	return nil
}

// boundedBuilder is a strings.Builder that refuses to grow past max, so
// that output which would exceed a limit is never held in memory whole.
type boundedBuilder struct {
	b    strings.Builder
	what string // names the output in the error
	max  int64
	err  error // set by the first write past max
}

func newBoundedBuilder(what string, max int64) *boundedBuilder {
	return &boundedBuilder{what: what, max: max}
}

// WriteString appends s, or records the limit error and drops s when the
// result would be longer than max. Later writes are dropped too.
func (w *boundedBuilder) WriteString(s string) {
	if w.err != nil {
		return
	}
	if int64(w.b.Len())+int64(len(s)) > w.max {
		w.err = stepOutputError(w.what, w.max)
		return
	}
	w.b.WriteString(s)
}

// String returns what was written, or the limit error.
func (w *boundedBuilder) String() (string, error) {
	if w.err != nil {
		return "", w.err
	}
	return w.b.String(), nil
}
