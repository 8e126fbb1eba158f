package api

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/agentry/agentry/internal/agents"
	def "github.com/agentry/agentry/internal/agents/definition"
	"github.com/agentry/agentry/internal/store"
)

// importFailure is the 422 of an agent_definition that does not validate:
// the AgentDefinitionImportErrorResponse body, at the top level rather than
// under detail, as the contract documents it.
type importFailure struct{ *def.ImportError }

func (e importFailure) GetStatus() int { return http.StatusUnprocessableEntity }

func (e importFailure) Error() string { return e.ImportError.Error() }

// agentError maps the agents service's errors to responses.
func agentError(err error) error {
	if err == nil {
		return nil
	}
	if ie, ok := def.AsImportError(err); ok {
		return importFailure{ie}
	}
	var inv *agents.InvalidError
	if errors.As(err, &inv) {
		items := make([]ValidationItem, len(inv.Items))
		for i, p := range inv.Items {
			items[i] = ValidationItem{Loc: p.Loc, Msg: p.Msg, Type: p.Type}
		}
		return &Error{Status: http.StatusUnprocessableEntity, Detail: items}
	}
	var callers *agents.CallersError
	if errors.As(err, &callers) {
		return Fail(http.StatusConflict, "%s", callers.Error())
	}
	var stale *agents.StaleChangeError
	if errors.As(err, &stale) {
		by := stale.SavedBy
		if by == "" {
			by = "an API key without a user"
		}
		return Fail(http.StatusConflict, "The definition was modified since you read it (saved by %s at %s): GET /agents/{agent_id}/definition again, re-apply your change and send its change_id",
			by, stale.SavedAt.UTC().Format(time.RFC3339))
	}
	switch {
	case errors.Is(err, agents.ErrUploadNotFound):
		return NotFound("Upload")
	case errors.Is(err, store.ErrNotFound):
		return NotFound("Agent")
	case errors.Is(err, agents.ErrStaleChange):
		return Fail(http.StatusConflict, "The definition was modified since you read it: GET /agents/{agent_id}/definition again, re-apply your change and send its change_id")
	case errors.Is(err, agents.ErrUploadsNotAccepted):
		return Fail(http.StatusBadRequest, "This agent's definition references no uploaded files ({{input}}, {{agent.attachments}} or {{attachments[…]}}), so it does not accept uploads; see GET /agents/{agent_id}/attachment-references")
	case errors.Is(err, agents.ErrUploadsUnavailable):
		return Fail(http.StatusServiceUnavailable, "Uploads are not available on this server")
	}
	return err
}

// tooLarge is the 413 of an upload, naming the limit.
func tooLarge(limit int64) *Error {
	return Fail(http.StatusRequestEntityTooLarge, "The file is larger than the upload limit of %s", humanBytes(limit))
}

func humanBytes(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}
