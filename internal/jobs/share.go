package jobs

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// QueueBackground is the queue of work no one waits on: feed polls and
// site crawls, ingestion, exports, embedding migrations, memory
// compaction, sweeps. It has its own workers (Config.BackgroundWorkers),
// so however slow that work is, it never holds the workers runs need.
// A kind goes there by giving its args the method
//
//	func (FooArgs) InsertOpts() river.InsertOpts { return jobs.Background }
//
// which River reads on every insert, periodic jobs' included.
const QueueBackground = "background"

// Background is the insert options of a background kind.
var Background = river.InsertOpts{Queue: QueueBackground}

// shareSnooze is how long a job of an account past its share waits before
// it is looked at again (it is then promoted by River's scheduler, which
// looks every few seconds).
const shareSnooze = time.Second

// accountShare caps the jobs of one account a process runs at once in
// each queue: past it, a job is put back (snoozed, which costs it no
// attempt) for another account's job to take the worker. One account's
// slow or numerous work thus leaves workers for the others' runs.
type accountShare struct {
	river.WorkerMiddlewareDefaults
	limits map[string]int // queue: jobs per account at once; absent or 0: no cap

	mu      sync.Mutex
	running map[shareKey]int
}

type shareKey struct{ queue, account string }

func newAccountShare(limits map[string]int) *accountShare {
	return &accountShare{limits: limits, running: map[shareKey]int{}}
}

// shareOf is the per-account cap of a queue of workers: percent of them,
// at least one.
func shareOf(workers, percent int) int {
	if percent <= 0 || percent >= 100 {
		return 0
	}
	return max(1, workers*percent/100)
}

func (m *accountShare) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	limit := m.limits[job.Queue]
	if limit <= 0 {
		return doInner(ctx)
	}
	var args struct {
		AccountID string `json:"account_id"`
	}
	if json.Unmarshal(job.EncodedArgs, &args) != nil || args.AccountID == "" {
		return doInner(ctx) // work of no account (ticks, sweeps)
	}
	k := shareKey{job.Queue, args.AccountID}
	m.mu.Lock()
	if m.running[k] >= limit {
		m.mu.Unlock()
		return river.JobSnooze(shareSnooze)
	}
	m.running[k]++
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		if m.running[k]--; m.running[k] <= 0 {
			delete(m.running, k)
		}
		m.mu.Unlock()
	}()
	return doInner(ctx)
}
