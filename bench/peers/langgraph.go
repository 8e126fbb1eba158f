package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"
)

// npmPackages are the pinned packages of the LangGraph side. The sdk is
// listed because langgraph-api 2.0.0 wants ~2.0.0 as a peer while
// @langchain/langgraph 1.7.3 depends on 1.15 itself; npm refuses the tree
// unless the root names the peer's version.
var npmPackages = []struct{ Name, Version string }{
	{"@langchain/langgraph-api", "2.0.0"},
	{"@langchain/langgraph-cli", "2.0.0"},
	{"@langchain/langgraph", "1.7.3"},
	{"@langchain/core", "1.4.0"},
	{"@langchain/langgraph-sdk", "2.0.0"},
}

// langgraphFiveNodes is the LangGraph side of the workload: a graph of five
// nodes, none calling a model, doing the same string work as agentryFiveSteps.
const langgraphFiveNodes = `import { StateGraph, Annotation, START, END } from "@langchain/langgraph";

const State = Annotation.Root({ input: Annotation(), text: Annotation(), result: Annotation() });

export const graph = new StateGraph(State)
  .addNode("prep", (s) => ({ text: ` + "`Question: ${s.input}`" + ` }))
  .addNode("tidy", (s) => ({ text: s.text.replace(/\s+/g, " ") }))
  .addNode("wrap", (s) => ({ text: ` + "`Answer: ${s.text}`" + ` }))
  .addNode("sign", (s) => ({ text: ` + "`${s.text} (checked)`" + ` }))
  .addNode("show", (s) => ({ result: s.text }))
  .addEdge(START, "prep").addEdge("prep", "tidy").addEdge("tidy", "wrap")
  .addEdge("wrap", "sign").addEdge("sign", "show").addEdge("show", END)
  .compile();
`

const langgraphConfig = `{"node_version": "20", "graphs": {"five": "./graph.mjs:graph"}}
`

// langgraph is a started LangGraph dev server with the five-node graph.
type langgraph struct {
	srv  *server
	base string
}

// offlineEnv keeps the Node side from calling home.
func offlineEnv() []string {
	return append(os.Environ(),
		"LANGGRAPH_CLI_NO_ANALYTICS=1",
		"LANGSMITH_TRACING=false",
		"LANGCHAIN_TRACING_V2=false",
		"NPM_CONFIG_UPDATE_NOTIFIER=false",
	)
}

// installLangGraph writes package.json, langgraph.json and the graph into
// dir and runs npm install there (the npm cache is reused, so only the
// first install needs the registry).
func installLangGraph(ctx context.Context, dir string) error {
	deps := map[string]string{}
	for _, p := range npmPackages {
		deps[p.Name] = p.Version
	}
	pkg, _ := json.MarshalIndent(map[string]any{"name": "peers-langgraph", "private": true, "type": "module", "dependencies": deps}, "", "  ")
	files := map[string]string{"package.json": string(pkg), "langgraph.json": langgraphConfig, "graph.mjs": langgraphFiveNodes}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			return err
		}
	}
	cmd := exec.CommandContext(ctx, "npm", "install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel", "error")
	cmd.Dir, cmd.Env = dir, offlineEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("npm install: %v\n%s", err, out)
	}
	return nil
}

// installedVersions reads the versions npm resolved.
func installedVersions(dir string) map[string]string {
	v := map[string]string{}
	for _, p := range npmPackages {
		b, err := os.ReadFile(filepath.Join(dir, "node_modules", p.Name, "package.json"))
		if err != nil {
			continue
		}
		var m struct{ Version string }
		if json.Unmarshal(b, &m) == nil {
			v[p.Name] = m.Version
		}
	}
	return v
}

// startLangGraph starts `langgraphjs dev` (the in-memory dev server) on a
// free loopback port, without a browser or analytics.
func startLangGraph(ctx context.Context, dir string) (*langgraph, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(filepath.Join(dir, "node_modules", ".bin", "langgraphjs"), "dev",
		"--no-browser", "--host", "127.0.0.1", "--port", strconv.Itoa(port))
	cmd.Dir, cmd.Env = dir, offlineEnv()
	l := &langgraph{base: loopback(port)}
	if l.srv, err = startServer("langgraph", cmd, filepath.Join(dir, "langgraph.log")); err != nil {
		return nil, err
	}
	return l, waitReady(ctx, l.srv, l.base+"/ok", 120*time.Second)
}

// target streams a thread-less run, POST /runs/stream (stream mode
// "values"); a run is complete when a state carrying the expected result
// has arrived and the server closes the stream.
func (l *langgraph) target() *target {
	body, _ := json.Marshal(map[string]any{"assistant_id": "five", "input": map[string]string{"input": runInput}})
	return &target{
		Name: "LangGraph",
		PGID: l.srv.pgid(),
		NewRequest: func(ctx context.Context) (*http.Request, error) {
			req, err := http.NewRequestWithContext(ctx, "POST", l.base+"/runs/stream", bytes.NewReader(body))
			if err != nil {
				return nil, err
			}
			req.Header.Set("Content-Type", "application/json")
			return req, nil
		},
		Event: langgraphEvent,
	}
}

func langgraphEvent(event, data string) (complete, last bool, err error) {
	switch event {
	case "values":
		var state struct{ Result *string }
		if err := json.Unmarshal([]byte(data), &state); err != nil {
			return false, true, fmt.Errorf("langgraph values event: %w", err)
		}
		if state.Result != nil {
			if *state.Result != wantOutput {
				return false, true, fmt.Errorf("langgraph result %q", *state.Result)
			}
			return true, false, nil // the server closes the stream after the last state
		}
	case "error":
		return false, true, fmt.Errorf("langgraph error event: %s", clip(data))
	}
	return false, false, nil
}
