package llm

import (
	"context"
	"fmt"
	"time"
)

// ToolExecutor runs one tool call and returns its output (usually JSON).
// An error is reported back to the model as the tool's result, marked as
// an error, so the model can recover; it does not end the loop.
type ToolExecutor func(ctx context.Context, call ToolCall) (string, error)

// ToolCallRecord is one executed tool call, as run reports show them.
type ToolCallRecord struct {
	ID        string    `json:"id"`
	Name      string    `json:"function_name"`
	Arguments string    `json:"input"`
	Output    string    `json:"output"`
	Error     string    `json:"error,omitempty"`
	Succeeded bool      `json:"succeeded"`
	Round     int       `json:"round_index"` // 0-based model round that asked for it
	Sequence  int       `json:"sequence"`    // 0-based position across the loop
	StartedAt time.Time `json:"started_at"`
	EndedAt   time.Time `json:"ended_at"`
}

// ToolLoopOptions tune RunToolLoop.
type ToolLoopOptions struct {
	// MaxRounds bounds how many model turns may ask for tools (default 8).
	// After that the model is asked once more with tools disabled.
	MaxRounds int
	// Stream, when set, streams every round's deltas to it.
	Stream StreamFunc
	// OnToolCall observes each executed call as it finishes.
	OnToolCall func(ToolCallRecord)
}

// ToolLoopResult is the outcome of a tool loop.
type ToolLoopResult struct {
	Response *ChatResponse // the final answer
	Calls    []ToolCallRecord
	Usage    Usage     // summed over all rounds
	Rounds   int       // model calls made
	Messages []Message // the full conversation, ending with the answer
}

// RunToolLoop calls the model, runs the tools it asks for with exec, feeds
// the results back, and repeats until the model answers without tools.
// Calls of one round run in order, so executors need not be concurrent-safe.
func RunToolLoop(ctx context.Context, p Provider, req ChatRequest, exec ToolExecutor, opt ToolLoopOptions) (*ToolLoopResult, error) {
	maxRounds := opt.MaxRounds
	if maxRounds <= 0 {
		maxRounds = 8
	}
	res := &ToolLoopResult{}
	msgs := append([]Message(nil), req.Messages...)
	seq := 0
	for round := 0; ; round++ {
		r := req
		r.Messages = msgs
		if round >= maxRounds {
			r.ToolChoice = ToolChoice{Mode: ToolChoiceNone}
		}
		var resp *ChatResponse
		var err error
		if opt.Stream != nil {
			resp, err = p.Stream(ctx, r, opt.Stream)
		} else {
			resp, err = p.Chat(ctx, r)
		}
		res.Rounds++
		if err != nil {
			res.Messages = msgs
			return res, err
		}
		res.Usage.Add(resp.Usage)
		msgs = append(msgs, resp.Message)
		res.Response = resp
		res.Messages = msgs
		if len(resp.Message.ToolCalls) == 0 {
			return res, nil
		}
		if round >= maxRounds {
			return res, fmt.Errorf("%w (%d rounds)", ErrToolRoundsExceeded, maxRounds)
		}
		for _, call := range resp.Message.ToolCalls {
			if err := ctx.Err(); err != nil {
				return res, err
			}
			rec := ToolCallRecord{ID: call.ID, Name: call.Name, Arguments: string(call.Arguments),
				Round: round, Sequence: seq, StartedAt: time.Now().UTC()}
			seq++
			out, xerr := exec(ctx, call)
			rec.EndedAt = time.Now().UTC()
			rec.Output = out
			rec.Succeeded = xerr == nil
			content := out
			if xerr != nil {
				rec.Error = xerr.Error()
				content = "error: " + xerr.Error()
			}
			res.Calls = append(res.Calls, rec)
			if opt.OnToolCall != nil {
				opt.OnToolCall(rec)
			}
			msgs = append(msgs, ToolResult(call, content, xerr != nil))
		}
		res.Messages = msgs
	}
}
