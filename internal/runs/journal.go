package runs

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/agentry/agentry/internal/agents/definition"
	"github.com/agentry/agentry/internal/engine"
	"github.com/agentry/agentry/internal/events"
	"github.com/agentry/agentry/internal/store"
)

// journal is engine.Journal on the store and the event bus.
//
// When a step's record must be durable. A record (with the event
// announcing it) may be held in memory while nothing outside this process
// can have seen its effect, and must be committed before anything can:
//
//   - before a step that is not local starts (a model call, an outbound
//     request, a write elsewhere, a review: anything but localSteps), so
//     no outbound call is made on an output that a crash could lose;
//   - before any event a step emits (stream tokens a client reads), in
//     the same transaction;
//   - before a retry supersedes steps;
//   - with the run's end or park (finish), in the same transaction.
//
// So consecutive local steps of a run (text, regex_replace,
// display_result, flow steps) cost no commit of their own: they are
// journalled together with the next write that must happen anyway. A
// crash loses only held records of local steps, which nothing observed and
// which the resumed run computes again, identically; the records of every
// other step are committed when they are made, as before.
type journal struct {
	db   *store.DB
	repo *Repo
	bus  *events.Bus
	run  Run
	ids  syncMap
	// first says this is the run's first attempt, which has no steps
	// recorded yet (steps are only written under an attempt): Completed
	// need not read them.
	first bool

	// mu orders the writes of a run's parallel branches: held records are
	// written in the order they were made, and a flush completes before
	// the next begins (a finish never lands before its start).
	mu      sync.Mutex
	pending []heldWrite
	// judged says a step record of this attempt carried judgments (under
	// mu): the run's end or park marks it for their materialization.
	judged bool
}

// localSteps run in this process alone, with no effect outside the run's
// own journal: their records may be held (see journal).
var localSteps = map[string]bool{
	string(definition.StepText): true, string(definition.StepRegexReplace): true, string(definition.StepDisplayResult): true,
	string(definition.StepGate): true, string(definition.StepIfElse): true, string(definition.StepSwitch): true,
	string(definition.StepMerge): true, string(definition.StepJoin): true,
}

// heldWrite is one journal write: a step attempt starting (insert) or
// finishing (update), and the event announcing it.
type heldWrite struct {
	insert *StepRow
	update *StepRow
	event  *events.New
}

func (j *journal) Completed(ctx context.Context) (map[string]engine.StepRecord, error) {
	if j.first {
		return map[string]engine.StepRecord{}, nil
	}
	rows, err := j.repo.Steps(ctx, j.run.ID)
	if err != nil {
		return nil, err
	}
	out := map[string]engine.StepRecord{}
	for _, s := range rows {
		if s.Status != engine.StatusCompleted || s.Superseded {
			continue
		}
		out[s.Key] = engine.StepRecord{Key: s.Key, StepID: s.StepID, StepType: s.StepType, Status: s.Status, Input: s.Input,
			Output: s.Output, ContentType: s.ContentType, Attempt: s.Attempt, Stopped: s.Stopped, Final: s.Final}
	}
	return out, nil
}

// StepStarted records the attempt and announces it, held for a local step.
func (j *journal) StepStarted(ctx context.Context, rec engine.StepRecord) error {
	id := rec.ID
	if id == "" {
		id = store.NewID()
	}
	row := StepRow{ID: id, RunID: j.run.ID, AccountID: j.run.AccountID, Key: rec.Key, StepID: rec.StepID,
		StepType: rec.StepType, Attempt: rec.Attempt, Status: rec.Status, Input: rec.Input, StartedAt: rec.StartedAt}
	j.ids.set(fmt.Sprintf("%s#%d", rec.Key, rec.Attempt), row.ID)
	return j.record(ctx, rec.StepType, heldWrite{insert: &row, event: &events.New{Type: "step_started", Data: stepEvent(j.run.ID, rec)}})
}

// StepFinished records the outcome and announces it. It is durable when it
// returns, except for a local step, whose record the next write that
// must be durable carries (see journal).
func (j *journal) StepFinished(ctx context.Context, rec engine.StepRecord) error {
	id, ok := j.ids.get(fmt.Sprintf("%s#%d", rec.Key, rec.Attempt))
	if !ok {
		return fmt.Errorf("step %s attempt %d finished without starting", rec.Key, rec.Attempt)
	}
	tc, _ := json.Marshal(rec.ToolCalls)
	if rec.ToolCalls == nil {
		tc = []byte("[]")
	}
	ended := rec.EndedAt
	w := heldWrite{update: &StepRow{ID: id, Status: rec.Status, Output: rec.Output, ContentType: rec.ContentType,
		Model: rec.Model, InputTokens: rec.InputTokens, OutputTokens: rec.OutputTokens,
		EndedAt: &ended, Credits: rec.Credits, ToolCalls: tc, Error: rec.Error, Stopped: rec.Stopped, Final: rec.Final,
		Judgments: j.repo.PackJudgments(rec.Judgments)}}
	data := stepEvent(j.run.ID, rec)
	switch rec.Status {
	case engine.StatusFailed:
		data["error"] = rec.Error
		w.event = &events.New{Type: "step_failed", Data: data}
	case engine.StatusProcessing:
		// parked: nothing to announce yet
	default:
		data["credits"] = rec.Credits
		w.event = &events.New{Type: "step_completed", Data: data}
	}
	return j.record(ctx, rec.StepType, w)
}

func stepEvent(runID string, rec engine.StepRecord) map[string]any {
	return map[string]any{"run_id": runID, "step_id": rec.StepID, "step_type": rec.StepType, "attempt": rec.Attempt}
}

// record holds w for a local step, or writes it with everything held.
func (j *journal) record(ctx context.Context, stepType string, w heldWrite) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.pending = append(j.pending, w)
	if w.update != nil && w.update.Judgments != nil {
		j.judged = true
	}
	if localSteps[stepType] {
		return nil
	}
	return j.flushLocked(ctx)
}

// flushLocked commits the held writes (and extra events after them) in
// one transaction.
func (j *journal) flushLocked(ctx context.Context, extra ...events.New) error {
	if len(j.pending) == 0 && len(extra) == 0 {
		return nil
	}
	if err := j.db.Tx(ctx, func(tx *sql.Tx) error { return j.writeHeldTx(ctx, tx, extra...) }); err != nil {
		return err
	}
	j.pending = nil
	j.bus.Wake(j.run.ID)
	return nil
}

// writeHeldTx writes the held writes, then extra, within tx; the caller
// holds mu and clears pending once tx commits.
func (j *journal) writeHeldTx(ctx context.Context, tx *sql.Tx, extra ...events.New) error {
	var evs []events.New
	for _, w := range j.pending {
		if w.insert != nil {
			if _, err := j.repo.InsertStep(ctx, tx, *w.insert); err != nil {
				return err
			}
		}
		if w.update != nil {
			if err := j.repo.FinishStep(ctx, tx, *w.update); err != nil {
				return err
			}
		}
		if w.event != nil {
			evs = append(evs, *w.event)
		}
	}
	_, err := j.bus.AppendTx(ctx, tx, j.run.AccountID, j.run.ID, append(evs, extra...)...)
	return err
}

// settle runs fn, the transaction ending or parking the run, with the
// held writes (and the events fn passes after them) committed in it. Held
// writes are dropped either way: when the run's end is refused, another
// attempt holds the run. judged tells fn whether the run may hold
// journaled judgments: this attempt's, or an earlier attempt's (which a
// crash may have kept from marking the run).
func (j *journal) settle(fn func(judged bool, write func(ctx context.Context, tx *sql.Tx, extra ...events.New) error) error) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	err := fn(j.judged || !j.first, j.writeHeldTx)
	j.pending = nil
	return err
}

func (j *journal) Supersede(ctx context.Context, keys []string) error {
	j.mu.Lock()
	err := j.flushLocked(ctx)
	j.mu.Unlock()
	if err != nil {
		return err
	}
	return j.repo.SupersedeSteps(ctx, j.run.ID, keys)
}

// Emit commits the events, and the held writes before them, at once: a
// client reading them (stream tokens) sees nothing not yet durable.
func (j *journal) Emit(ctx context.Context, evs ...engine.Event) error {
	out := make([]events.New, len(evs))
	for i, e := range evs {
		out[i] = events.New{Type: e.Type, Data: e.Data}
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.flushLocked(ctx, out...)
}
