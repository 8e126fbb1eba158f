package web

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/agentry/agentry/client"
)

// Helpers of the oversight areas' forms (evaluation criteria and
// settings, governance policies, memory-bank settings): the API's refusal
// shown next to the form that caused it, with the user's input kept.

// formRefusal reads an API refusal as the problems a form shows and the
// status its page answers with: a 422's items at their fields, a 400's,
// 403's or 409's sentence. ok is false for what is not the form's to show
// (another account's resource is a 404, a server error a 500): the caller
// returns err and the error page says it.
func formRefusal(err error) (probs []problem, status int, ok bool) {
	var ae *client.APIError
	if !errors.As(err, &ae) || ae.StatusCode == http.StatusNotFound || ae.StatusCode == http.StatusUnauthorized || ae.StatusCode >= 500 {
		return nil, 0, false
	}
	if p, isValidation := apiProblems(err, nil); isValidation {
		return p, http.StatusUnprocessableEntity, true
	}
	msg := ae.Message
	if ae.StatusCode == http.StatusForbidden {
		msg = "Your role may not make this change (the account's owners and admins may): " + msg
	}
	return []problem{{Severity: "error", Message: msg}}, ae.StatusCode, true
}

// jsonField reads a textarea holding JSON: empty is nil, text that is not
// JSON at all is a problem at the field (the client cannot send it); what
// the JSON must hold is the API's to judge.
func jsonField(text, field, what string, probs *[]problem) json.RawMessage {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil
	}
	if !json.Valid([]byte(text)) {
		*probs = append(*probs, problem{Severity: "error", Path: field, Message: what + " are not valid JSON."})
		return nil
	}
	return json.RawMessage(text)
}

// intField reads a whole number from a form field: empty is nil.
func intField(text, field, what string, probs *[]problem) *int {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil
	}
	n, err := strconv.Atoi(text)
	if err != nil {
		*probs = append(*probs, problem{Severity: "error", Path: field, Message: what + " must be a whole number."})
		return nil
	}
	return &n
}

// optText is a trimmed form value, nil when empty.
func optText(s string) *string {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	return &s
}

// indentJSON shows stored JSON in a textarea, two-space indented.
func indentJSON(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return string(raw)
	}
	return string(b)
}
