package runs

import (
	"context"
	"slices"
	"time"
)

// The account-wide views of runs: the list across agents, the summary of a
// recent window, and a run's details (who ran it, its sub-runs and files).
// They are extensions of the API, and what the web console shows.

// AccountRuns lists an account's runs newest first; next is the cursor of
// the following page, "" on the last one.
func (s *Service) AccountRuns(ctx context.Context, accountID string, f RunFilter, limit int) ([]RunListItem, string, error) {
	items, more, err := accountRepo{s.DB}.list(ctx, accountID, f, limit)
	if err != nil || !more {
		return items, "", err
	}
	return items, items[len(items)-1].ID, nil
}

// SummaryRows bounds the runs one summary reads; a window with more is
// summarised over its newest SummaryRows runs, and says so.
const SummaryRows = 200_000

// Summary is what an account's runs of a window add up to.
type Summary struct {
	From, To time.Time
	Total    int
	ByStatus map[string]int
	// FailureRate is failed / (completed + failed), 0 when none ended.
	FailureRate float64
	// P50 and P95 are the durations (start to end) of the ended runs, in
	// seconds; nil when none ended.
	P50, P95  *float64
	Credits   float64
	Buckets   []SummaryBucket
	Truncated bool
}

// SummaryBucket is one slice of the window, for a chart.
type SummaryBucket struct {
	Start     time.Time
	Completed int
	Failed    int
	Other     int
}

// Summarise adds up the account's runs created in [now-window, now),
// in buckets of bucket (the window is cut into at most 200 of them).
func (s *Service) Summarise(ctx context.Context, accountID string, now time.Time, window, bucket time.Duration) (Summary, error) {
	now = now.UTC()
	if bucket <= 0 || window/bucket > 200 {
		bucket = window / 200
	}
	from := now.Add(-window)
	out := Summary{From: from, To: now, ByStatus: map[string]int{}}
	n := int((window + bucket - 1) / bucket)
	start := now.Add(-time.Duration(n) * bucket)
	for i := range n {
		out.Buckets = append(out.Buckets, SummaryBucket{Start: start.Add(time.Duration(i) * bucket)})
	}
	var durations []float64
	truncated, err := accountRepo{s.DB}.stats(ctx, accountID, RunFilter{From: from, To: now.Add(time.Millisecond)}, SummaryRows, func(r runStatRow) {
		out.Total++
		out.ByStatus[r.Status]++
		out.Credits += r.Credits
		if r.StartedAt != nil && r.EndedAt != nil && RunTerminal(r.Status) {
			durations = append(durations, r.EndedAt.Sub(*r.StartedAt).Seconds())
		}
		i := int(r.CreatedAt.Sub(start) / bucket)
		if i < 0 || i >= n {
			return
		}
		switch r.Status {
		case RunCompleted:
			out.Buckets[i].Completed++
		case RunFailed:
			out.Buckets[i].Failed++
		default:
			out.Buckets[i].Other++
		}
	})
	if err != nil {
		return Summary{}, err
	}
	out.Truncated = truncated
	if ended := out.ByStatus[RunCompleted] + out.ByStatus[RunFailed]; ended > 0 {
		out.FailureRate = float64(out.ByStatus[RunFailed]) / float64(ended)
	}
	if len(durations) > 0 {
		slices.Sort(durations)
		out.P50, out.P95 = percentile(durations, 0.50), percentile(durations, 0.95)
	}
	return out, nil
}

// percentile is the nearest-rank percentile of sorted values.
func percentile(sorted []float64, p float64) *float64 {
	i := int(float64(len(sorted))*p+0.999999) - 1
	v := sorted[min(max(i, 0), len(sorted)-1)]
	return &v
}

// Details is a run with what its page shows around it.
type Details struct {
	Run         Run
	Children    []RunListItem
	Attachments []RunAttachment
	// Usage is each step attempt's model use, in the order of the steps
	// of Get.
	Usage []StepUsage
}

// DetailsLimit bounds the sub-runs and the files one details answer lists.
const DetailsLimit = 500

// RunDetails reads a run of the account with its sub-runs and files.
func (s *Service) RunDetails(ctx context.Context, accountID, runID string) (Details, error) {
	r, err := s.Repo.Run(ctx, accountID, runID)
	if err != nil {
		return Details{}, err
	}
	q := accountRepo{s.DB}
	children, err := q.children(ctx, accountID, runID, DetailsLimit)
	if err != nil {
		return Details{}, err
	}
	files, err := q.attachments(ctx, accountID, runID, DetailsLimit)
	if err != nil {
		return Details{}, err
	}
	usage, err := q.stepUsages(ctx, accountID, runID)
	if err != nil {
		return Details{}, err
	}
	return Details{Run: r, Children: children, Attachments: files, Usage: usage}, nil
}
