package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/fault"
)

// The one table answers every kind of the vocabulary with its status and
// documented body, and the outermost fault of a chain decides.
func TestProblemTable(t *testing.T) {
	sentinel := &fault.Conflict{Err: errors.New("the run has already finished")}
	cases := []struct {
		name   string
		err    error
		status int
		body   string
	}{
		{"bare not found", fmt.Errorf("load: %w", fault.ErrNotFound), 404, `{"detail":"Not found"}`},
		{"named not found", fault.Name(fault.ErrNotFound, "Agent"), 404, `{"detail":"Agent not found"}`},
		{"invalid", fault.InvalidField("name", "is bad"), 422, `{"detail":[{"loc":["body","name"],"msg":"is bad","type":"value_error"}]}`},
		{"field sentinel wrapped", fmt.Errorf("%w: at most 3", fault.FieldSentinel([]any{"body", "hosts"}, "value_error", "invalid hosts")),
			422, `{"detail":[{"loc":["body","hosts"],"msg":"invalid hosts: at most 3","type":"value_error"}]}`},
		{"documented body", &fault.Invalid{Body: map[string]string{"error": "agent_definition_invalid"}}, 422, `{"error":"agent_definition_invalid"}`},
		{"bad request", &fault.BadRequest{Msg: "no"}, 400, `{"detail":"no"}`},
		{"forbidden", &fault.Forbidden{Msg: "role"}, 403, `{"detail":"role"}`},
		{"bare conflict", fmt.Errorf("%w: unique", fault.ErrConflict), 409, `{"detail":"Conflict"}`},
		{"conflict sentinel wrapped", fmt.Errorf("%w: detail", sentinel), 409, `{"detail":"the run has already finished: detail"}`},
		{"gone", &fault.Gone{Msg: "expired"}, 410, `{"detail":"expired"}`},
		{"too large", fault.UploadTooLarge(1<<20, nil), 413, `{"detail":"The file is larger than the upload limit of 1 MiB"}`},
		{"unsupported", &fault.Unsupported{Msg: "media"}, 415, `{"detail":"media"}`},
		{"limit", &fault.Limit{Msg: "slow down", RetryAfter: 1500 * time.Millisecond}, 429, `{"detail":"slow down"}`},
		{"unavailable", &fault.Unavailable{Msg: "off"}, 503, `{"detail":"off"}`},
		{"no credits", fault.ErrNoCredits, 402, `{"detail":{"error":"insufficient_credits","message":"The account has no credits left for this request. Add credits and try again.","account_id":""}}`},
		{"no credits up front", &fault.NoCredits{Estimate: 5, Balance: 2}, 402,
			`{"detail":{"error":"insufficient_credits","message":"Refused before starting: the up-front estimate is 5 credits and the account's balance is 2 credits. Add credits and try again.","account_id":""}}`},
		{"outermost decides", &fault.BadRequest{Msg: "outer", Err: fault.InvalidField("f", "inner")}, 400, `{"detail":"outer"}`},
	}
	for _, c := range cases {
		e := problem(context.Background(), c.err)
		if e == nil {
			t.Errorf("%s: no answer", c.name)
			continue
		}
		if e.GetStatus() != c.status {
			t.Errorf("%s: status %d, want %d", c.name, e.GetStatus(), c.status)
		}
		var body any = e
		if ours, ok := e.(*Error); ok {
			body = ours
		}
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(b); got != c.body {
			t.Errorf("%s: body %s, want %s", c.name, got, c.body)
		}
	}
	if e, _ := problem(context.Background(), &fault.Limit{Msg: "x", RetryAfter: 1500 * time.Millisecond}).(*Error); e == nil || e.Headers.Get("Retry-After") != "2" {
		t.Errorf("a Limit's Retry-After is not sent: %+v", e)
	}
	if problem(context.Background(), errors.New("boom")) != nil {
		t.Error("an error of no kind is answered; it must be a 500")
	}
	if e := problem(context.Background(), context.Canceled); e == nil || e.GetStatus() != 499 {
		t.Errorf("a cancelled request: %v", e)
	}
}
