package sending

import (
	"context"
	"errors"
	"log/slog"

	"github.com/agentry/agentry/internal/store"
	"github.com/riverqueue/river"
)

// DeliverArgs is the job that hands one copy to the next hop.
type DeliverArgs struct {
	AccountID  string `json:"account_id"`
	DeliveryID string `json:"delivery_id"`
}

// Kind implements river.JobArgs.
func (DeliverArgs) Kind() string { return "mail_delivery" }

// DeliverWorker works DeliverArgs. A transient failure returns its error,
// so River retries it with backoff; a 5xx refusal is recorded as a bounce
// and not retried; the last attempt's failure is recorded as failed.
type DeliverWorker struct {
	river.WorkerDefaults[DeliverArgs]
	S *Service
}

// AddWorkers registers the area's job kinds.
func AddWorkers(w *river.Workers, s *Service) { river.AddWorker(w, &DeliverWorker{S: s}) }

// Work implements river.Worker.
func (w *DeliverWorker) Work(ctx context.Context, job *river.Job[DeliverArgs]) error {
	s := w.S
	d, m, err := s.repo.deliveryWork(ctx, job.Args.AccountID, job.Args.DeliveryID)
	if errors.Is(err, store.ErrNotFound) {
		return nil // the account or message is gone
	}
	if err != nil {
		return err
	}
	if d.Status != DeliveryQueued {
		return nil // done by an earlier attempt whose job did not learn it
	}
	actx, cancel := context.WithTimeout(ctx, s.cfg.AttemptTimeout)
	err = s.transport.Deliver(actx, m.MailFrom, d.Recipient, []byte(d.Raw))
	cancel()
	var perm *PermanentError
	switch {
	case err == nil:
		return s.repo.recordAttempt(ctx, d.AccountID, d.ID, DeliverySent, 0, "")
	case errors.As(err, &perm):
		slog.Info("mail bounced", "delivery", d.ID, "code", perm.Code, "err", err)
		return s.repo.recordAttempt(ctx, d.AccountID, d.ID, DeliveryBounced, perm.Code, truncate(err.Error(), 1000))
	case job.Attempt >= job.MaxAttempts:
		if rerr := s.repo.recordAttempt(ctx, d.AccountID, d.ID, DeliveryFailed, Code(err), truncate(err.Error(), 1000)); rerr != nil {
			return rerr
		}
		return err
	default:
		if rerr := s.repo.recordAttempt(ctx, d.AccountID, d.ID, DeliveryQueued, Code(err), truncate(err.Error(), 1000)); rerr != nil {
			return rerr
		}
		return err
	}
}
