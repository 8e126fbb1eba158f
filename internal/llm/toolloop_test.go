package llm

import (
	"context"
	"errors"
	"testing"
)

func TestToolLoopRoundLimit(t *testing.T) {
	p := &loopy{}
	res, err := RunToolLoop(context.Background(), p, ChatRequest{Tools: []Tool{{Name: "t"}}, Messages: []Message{User("go")}},
		func(context.Context, ToolCall) (string, error) { return "again", nil }, ToolLoopOptions{MaxRounds: 2})
	if !errors.Is(err, ErrToolRoundsExceeded) || res.Rounds != 3 || len(res.Calls) != 2 {
		t.Errorf("err %v rounds %d calls %d", err, res.Rounds, len(res.Calls))
	}
	if p.lastChoice != ToolChoiceNone {
		t.Error("final round did not disable tools")
	}
	if res.Calls[1].Round != 1 || res.Calls[1].Sequence != 1 || res.Usage.InputTokens != 3 {
		t.Errorf("records %+v usage %+v", res.Calls, res.Usage)
	}
}

// loopy always asks for a tool.
type loopy struct{ lastChoice ToolChoiceMode }

func (l *loopy) Chat(_ context.Context, req ChatRequest) (*ChatResponse, error) {
	l.lastChoice = req.ToolChoice.Mode
	return &ChatResponse{Message: Message{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c", Name: "t", Arguments: []byte("{}")}}},
		Usage: Usage{InputTokens: 1}}, nil
}
func (l *loopy) Stream(ctx context.Context, req ChatRequest, _ StreamFunc) (*ChatResponse, error) {
	return l.Chat(ctx, req)
}
func (l *loopy) Embed(context.Context, EmbedRequest) (*EmbedResponse, error) {
	return nil, ErrUnsupported
}
