package sending

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentry/agentry/internal/agents/definition"
	"github.com/agentry/agentry/internal/engine"
)

// RegisterStep makes send_email steps run on reg, sending through s.
func RegisterStep(reg *engine.Registry, s *Service) {
	reg.Register(definition.StepSendEmail, engine.HandlerFunc(s.sendEmailStep))
}

// sendEmailStep renders the step's fields, queues the mail (opted-out
// recipients skipped) and reports what it did as an email_queued run
// event; its output is its input, unchanged. Delivery happens after, in
// jobs, so the run does not wait on the relay.
func (s *Service) sendEmailStep(ctx context.Context, x *engine.Exec) (engine.Result, error) {
	addrs := func(field string) ([]string, error) {
		var tpls []string
		switch v := x.Step.Config[field].(type) {
		case nil:
		case string:
			tpls = []string{v}
		case []any:
			for _, e := range v {
				str, ok := e.(string)
				if !ok {
					return nil, fmt.Errorf("%s: every recipient must be a string", field)
				}
				tpls = append(tpls, str)
			}
		case []string:
			tpls = v
		default:
			return nil, fmt.Errorf("%s: want an address or a list of addresses", field)
		}
		if len(tpls) > s.cfg.MaxRecipients {
			return nil, fmt.Errorf("%s: %d entries; at most %d recipients", field, len(tpls), s.cfg.MaxRecipients)
		}
		out := make([]string, 0, len(tpls))
		for _, t := range tpls {
			r, err := x.Render(t)
			if err != nil {
				return nil, err
			}
			out = append(out, r)
		}
		return out, nil
	}
	m := Mail{AccountID: x.Run.AccountID, AgentID: x.Run.AgentID, RunID: x.Run.ID, StepKey: x.Key, AgentMail: true, NameFromAgent: true}
	var err error
	if m.To, err = addrs("to"); err != nil {
		return engine.Result{}, err
	}
	if m.Cc, err = addrs("cc"); err != nil {
		return engine.Result{}, err
	}
	if m.Bcc, err = addrs("bcc"); err != nil {
		return engine.Result{}, err
	}
	if m.ReplyTo, err = x.Field("reply_to", ""); err != nil {
		return engine.Result{}, err
	}
	if m.Subject, err = x.Field("subject", ""); err != nil {
		return engine.Result{}, err
	}
	if m.Body, err = x.Field("body", "{{input}}"); err != nil {
		return engine.Result{}, err
	}
	m.HTML, _ = x.Step.Bool("html")
	if x.Run.Regression {
		// A regression's replay sends no mail: what it would have sent is
		// told, and the step passes its input on as when it sends.
		err := x.Emit(ctx, engine.Event{Type: "email_skipped", Data: map[string]any{"step_id": x.Step.ID,
			"reason": "regression replay", "to": m.To, "subject": m.Subject}})
		return engine.Result{Output: x.Input}, err
	}
	rep, err := s.Send(ctx, m)
	if err != nil {
		if errors.Is(err, ErrInvalid) {
			return engine.Result{}, err
		}
		return engine.Result{}, fmt.Errorf("send_email: %w", err)
	}
	queued, skipped := make([]any, len(rep.Queued)), make([]any, len(rep.SkippedOptedOut))
	for i, r := range rep.Queued {
		queued[i] = r
	}
	for i, r := range rep.SkippedOptedOut {
		skipped[i] = r
	}
	if err := x.Emit(ctx, engine.Event{Type: "email_queued", Data: map[string]any{"step_id": x.Step.ID, "message_id": rep.MessageID,
		"from": rep.From, "queued": queued, "skipped_opted_out": skipped}}); err != nil {
		return engine.Result{}, err
	}
	return engine.Result{Output: x.Input}, nil
}
