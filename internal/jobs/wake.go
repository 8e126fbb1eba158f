package jobs

import (
	"context"
	"sync/atomic"

	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivershared/baseservice"
	"github.com/riverqueue/river/rivershared/riverpilot"
	"github.com/riverqueue/river/rivertype"
)

// SQLite has no LISTEN/NOTIFY, so River wakes its local workers itself
// after an insert outside a transaction. A job inserted within the
// caller's transaction (InsertTx) is only fetchable once that commits,
// after River has returned; River exposes the wake-up it uses for such
// cases (riverpilot.PilotInitParams.NotifyNonTxJobInsert) only to a
// driver that supplies its own pilot. sqliteDriver is riversqlite's
// driver supplying River's standard pilot, wrapped to keep that wake-up.
// Should a River upgrade stop handing it over, wake becomes a no-op and
// workers find the job at their next poll (Config.PollInterval): slower,
// never lost (TestInsertTxWakesLocalWorker notices).
type sqliteDriver struct {
	*riversqlite.Driver
	pilot *wakingPilot
}

func newSQLiteDriver(d *riversqlite.Driver) *sqliteDriver {
	return &sqliteDriver{Driver: d, pilot: &wakingPilot{}}
}

// PluginInit and PluginPilot make the driver one River asks for a pilot.
func (d *sqliteDriver) PluginInit(*baseservice.Archetype) {}
func (d *sqliteDriver) PluginPilot() riverpilot.Pilot     { return d.pilot }

// wakingPilot is River's standard pilot, keeping the wake-up River hands it.
type wakingPilot struct {
	riverpilot.StandardPilot
	notify atomic.Pointer[func(context.Context, []*rivertype.JobInsertResult)]
	// started is set once the client's Start has returned. River's
	// producer sets up what the wake-up touches inside Start, unguarded,
	// so a wake-up during Start is a data race (the race detector caught
	// a run inserted while the server was starting); until then there is
	// nothing to wake, as Start's first fetch finds the job.
	started atomic.Bool
}

func (p *wakingPilot) PilotInit(a *baseservice.Archetype, params *riverpilot.PilotInitParams) {
	p.StandardPilot.PilotInit(a, params)
	if params != nil && params.NotifyNonTxJobInsert != nil {
		f := params.NotifyNonTxJobInsert
		p.notify.Store(&f)
	}
}

// wake tells this process's producer of res's queue to fetch now.
func (p *wakingPilot) wake(res *rivertype.JobInsertResult) {
	if f := p.notify.Load(); f != nil && p.started.Load() && res != nil && res.Job != nil && !res.UniqueSkippedAsDuplicate {
		(*f)(context.Background(), []*rivertype.JobInsertResult{res})
	}
}
