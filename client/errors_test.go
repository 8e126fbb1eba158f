package client_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/agentry/agentry/client"
)

func cannedError(t *testing.T, status int, body string) error {
	t.Helper()
	rec := newRecorder(t)
	rec.body = func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Request-Id", "req-1")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}
	c, err := client.New(client.WithBaseURL(rec.URL), client.WithAPIKey("k"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Me(ctx)
	if err == nil {
		t.Fatalf("status %d was not an error", status)
	}
	return err
}

func TestTypedErrors(t *testing.T) {
	isolate(t)

	err := cannedError(t, 404, `{"detail":"Agent not found"}`)
	var apiErr *client.APIError
	if !errors.As(err, &apiErr) || apiErr.Message != "Agent not found" || apiErr.RequestID != "req-1" ||
		string(apiErr.Body) != `{"detail":"Agent not found"}` || !errors.Is(err, client.ErrNotFound) || errors.Is(err, client.ErrForbidden) {
		t.Fatalf("404: %#v", err)
	}

	err = cannedError(t, 422, `{"detail":[{"loc":["body","items",0,"name"],"msg":"Field required","type":"missing"}]}`)
	var ve *client.ValidationError
	if !errors.As(err, &ve) || ve.Items[0].Field() != "body.items.0.name" || ve.Items[0].Type != "missing" {
		t.Fatalf("422: %v", err)
	}
	if !strings.Contains(err.Error(), "body.items.0.name: Field required") {
		t.Fatalf("422 message: %s", err)
	}

	err = cannedError(t, 402, `{"detail":{"error":"insufficient_credits","message":"No credits left","account_id":"acc-9"}}`)
	var ce *client.InsufficientCreditsError
	if !errors.As(err, &ce) || ce.AccountID != "acc-9" || ce.Code != "insufficient_credits" || ce.Message != "No credits left" ||
		!errors.Is(err, client.ErrPaymentRequired) || !errors.As(err, &apiErr) {
		t.Fatalf("402: %#v", err)
	}

	src := "{\n  \"agent\": {\n    \"definition\": {\n      \"step_type\": \"nope\"\n    }\n  }\n}"
	err = cannedError(t, 422, `{"error":"invalid_agent_definition","message":"The agent definition is invalid","errors":[{"line":4,"column":20,"path":"agent.definition.step_type","message":"unknown step type 'nope'"}],"source":`+quote(src)+`}`)
	var ie *client.ImportError
	if !errors.As(err, &ie) || ie.Code != "invalid_agent_definition" || len(ie.Errors) != 1 || ie.Source != src {
		t.Fatalf("import error: %#v", err)
	}
	fe := ie.Errors[0]
	if fe.Line != 4 || fe.Column != 20 || fe.Path != "agent.definition.step_type" {
		t.Fatalf("field error = %+v", fe)
	}
	ex := ie.Excerpt(fe, 1)
	lines := strings.Split(ex, "\n")
	if !strings.Contains(lines[1], `"step_type": "nope"`) || strings.Index(lines[2], "^") != strings.Index(lines[1], `"nope"`) {
		t.Fatalf("the caret does not point at line 4 column 20:\n%s", ex)
	}
	if errors.As(err, &ve) {
		t.Fatal("an import error is not a detail-list validation error")
	}

	err = cannedError(t, 502, `<html>Bad gateway</html>`)
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 502 || !errors.Is(err, client.ErrServiceUnavailable) || !client.Temporary(err) {
		t.Fatalf("502: %#v", err)
	}
	if client.Temporary(cannedError(t, 404, `{"detail":"x"}`)) {
		t.Fatal("a 404 is not temporary")
	}
}

func quote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}
