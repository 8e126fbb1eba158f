// Command quickstart creates an agent from the simple_qa template, asks it
// a question, prints the answer token by token as the model writes it, and
// then the run's final snapshot.
//
//	SERVICE_API_URL=http://127.0.0.1:8080 SERVICE_API_KEY=agk_… go run ./examples/quickstart "What is an agent?"
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"strings"

	"github.com/agentry/agentry/client"
)

func main() {
	question := "What can an agent do?"
	if len(os.Args) > 1 {
		question = strings.Join(os.Args[1:], " ")
	}
	// The server and the credential come from SERVICE_API_URL and
	// SERVICE_API_KEY, or from your `agentry auth login`.
	c, err := client.New()
	if err != nil {
		log.Fatal(err)
	}
	if err := quickstart(context.Background(), c, os.Stdout, question); err != nil {
		log.Fatal(err)
	}
}

// quickstart is the whole example; main only wires it to the environment.
func quickstart(ctx context.Context, c *client.Client, w io.Writer, question string) error {
	// 1. An agent from a template: a model answers the input, streaming
	// its reply to callers of the stream endpoint (POST /agents).
	agent, err := c.CreateAgent(ctx, client.CreateAgentRequest{Name: "Quickstart", AgentTemplate: "simple_qa"})
	if err != nil {
		return fmt.Errorf("create the agent: %w", err)
	}

	// 2. A streamed run: tokens arrive while the model writes them, and a
	// dropped connection resumes where it broke without starting again.
	var final *client.AgentRunResponse
	for ev, err := range c.StreamRun(ctx, agent.ID, client.AgentRunRequest{Input: question}) {
		if err != nil {
			return fmt.Errorf("stream the run: %w", err)
		}
		switch ev.Type {
		case client.EventStreamToken:
			fmt.Fprint(w, ev.Token)
		case client.EventDone:
			final = ev.Snapshot
		}
	}
	fmt.Fprintln(w)
	if final == nil {
		return errors.New("the stream ended without the run's final snapshot")
	}

	// 3. The final snapshot: status, cost and the output, which is the
	// text that was streamed.
	credits := 0.0
	if final.Credits != nil {
		credits = *final.Credits
	}
	fmt.Fprintf(w, "\nrun %s %s (%.4f credits)\n", final.RunID, final.Status, credits)
	fmt.Fprintf(w, "output: %s\n", final.OutputText())
	return nil
}
