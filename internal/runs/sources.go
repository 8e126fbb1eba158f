package runs

import (
	"context"
	"fmt"
	"io"

	"github.com/agentry/agentry/internal/agents"
	"github.com/agentry/agentry/internal/agents/definition"
	"github.com/agentry/agentry/internal/engine"
	"github.com/agentry/agentry/internal/store"
)

// AgentsArea reads agents for runs through the agents area, which owns
// how a stored workflow is parsed.
type AgentsArea struct{ S *agents.Service }

// ForRun loads an agent with its parsed workflow.
func (a AgentsArea) ForRun(ctx context.Context, accountID, agentID string) (Agent, error) {
	return a.ForRunAt(ctx, accountID, agentID, "")
}

// ForRunAt loads an agent with one version of its workflow (the current
// one for ""); agents.ErrUnknownVersion when it has no such version.
func (a AgentsArea) ForRunAt(ctx context.Context, accountID, agentID, changeID string) (Agent, error) {
	row, d, err := a.S.RunDefinitionAt(ctx, accountID, agentID, changeID)
	if err != nil {
		return Agent{}, err
	}
	return Agent{ID: row.ID, Name: row.Name, Definition: d, Trigger: definition.TriggerType(row.TriggerType),
		Disabled: row.Disabled(), Contract: d.AttachmentContract(), OversightRev: row.OversightRev, ChangeID: row.ChangeID}, nil
}

// maxAttachmentText bounds the extracted text a run reads per upload.
const maxAttachmentText = 8 << 20

// Attachments resolves input uploads to attachments with their text,
// through the agents area, which owns uploads. They come in the order
// given; every one must be an upload of this agent that finished
// processing.
func (a AgentsArea) Attachments(ctx context.Context, accountID, agentID string, ids []string) ([]engine.Attachment, error) {
	out := make([]engine.Attachment, 0, len(ids))
	for _, id := range ids {
		up, err := a.S.Upload(ctx, accountID, agentID, id)
		if err != nil {
			return nil, &InputError{Problems: []string{fmt.Sprintf("input upload %s was not found for this agent", id)}}
		}
		switch up.Status {
		case store.UploadProcessing:
			return nil, &InputError{Problems: []string{fmt.Sprintf("input upload %s is still being processed; poll its status and try again", id)}}
		case store.UploadFailed:
			return nil, &InputError{Problems: []string{fmt.Sprintf("input upload %s failed: %s", id, up.Error)}}
		}
		rd, err := a.S.OpenUploadText(ctx, up)
		if err != nil {
			return nil, err
		}
		b, err := io.ReadAll(io.LimitReader(rd, maxAttachmentText))
		rd.Close()
		if err != nil {
			return nil, err
		}
		out = append(out, engine.Attachment{ID: up.ID, Name: up.Filename, ContentType: up.ContentType, Text: string(b)})
	}
	return out, nil
}
