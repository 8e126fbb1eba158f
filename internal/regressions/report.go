package regressions

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/agentry/agentry/internal/evals"
	"github.com/agentry/agentry/internal/store"
)

// Outcomes of a replay compared with its original.
const (
	Unchanged = "unchanged" // same status and byte-for-byte the same output
	Changed   = "changed"
)

// Report is a regression with its progress and what it found so far.
type Report struct {
	Regression
	Total, Started, Finished int // recorded runs; replays started; replays judged
	// Passed counts the judged runs that passed, original and replay; the
	// pass rates are Passed over Finished (nil before any is judged).
	PassedBefore, PassedAfter int
	Unchanged, Changed        int
	// CreditsSpent is what the replays and judging cost so far.
	CreditsSpent float64
	// Items are the recorded runs in order (only when read one by one).
	Items []ItemView
}

// PassRate is passed over finished, nil when nothing is judged yet.
func (r Report) PassRate(passed int) *float64 {
	if r.Finished == 0 {
		return nil
	}
	f := round3(float64(passed) / float64(r.Finished))
	return &f
}

// ItemView is one recorded run, its replay and the comparison.
type ItemView struct {
	RegressionItem
	SourceStatus, ReplayStatus string
	// The outputs, side by side, for a changed output only.
	SourceOutput, ReplayOutput *string
	SourceVerdicts             []evals.Verdict
	ReplayVerdicts             []evals.Verdict
	ReplayCredits              float64
}

func (s *Service) report(ctx context.Context, reg Regression, withItems bool) (Report, error) {
	items, err := s.repo.items(ctx, reg.ID)
	if err != nil {
		return Report{}, err
	}
	rep := Report{Regression: reg, Total: len(items)}
	for _, it := range items {
		v := ItemView{RegressionItem: it}
		if it.ReplayRunID != "" {
			rep.Started++
			replay, err := s.runs.Run(ctx, reg.AccountID, it.ReplayRunID)
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				return Report{}, err
			}
			v.ReplayStatus, v.ReplayCredits = replay.Status, replay.Credits
			rep.CreditsSpent += replay.Credits + it.JudgeCredits
			if withItems && it.Outcome == Changed {
				v.ReplayOutput = replay.Output
			}
		}
		if it.Status == ItemDone {
			rep.Finished++
			if it.SourcePassed != nil && *it.SourcePassed {
				rep.PassedBefore++
			}
			if it.ReplayPassed != nil && *it.ReplayPassed {
				rep.PassedAfter++
			}
			if it.Outcome == Unchanged {
				rep.Unchanged++
			} else {
				rep.Changed++
			}
		}
		if !withItems {
			continue
		}
		src, err := s.runs.Run(ctx, reg.AccountID, it.SourceRunID)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return Report{}, err
		}
		v.SourceStatus = src.Status
		if it.Outcome == Changed {
			v.SourceOutput = src.Output
		}
		_ = json.Unmarshal(it.SourceChecks, &v.SourceVerdicts)
		_ = json.Unmarshal(it.ReplayChecks, &v.ReplayVerdicts)
		rep.Items = append(rep.Items, v)
	}
	rep.CreditsSpent = round6(rep.CreditsSpent)
	return rep, nil
}

// round6 keeps credits at the store's precision (micro-credits).
func round6(f float64) float64 { return store.FromMicro(store.ToMicro(f)) }
