package web

import (
	"fmt"
	"strings"
)

// The workflow drawn as a graph, laid out here and rendered as SVG by the
// template (no script): steps top to bottom, branches side by side. Edges
// are labelled for branches (then, else, a switch's cases, a loop's
// body); the continuation after a branching step is joined from every
// branch's last steps (dashed); a retry is a dashed edge back to its
// target; a call_agent step is a sub-agent, linked to its page.

const (
	nodeW, nodeH = 170, 44
	colW, rowH   = 190, 80
	margin       = 16
	maxNodes     = 400 // beyond this the drawing stops; the editor still has it all
)

type graphNode struct {
	ID, Name, Type, Kind string
	AgentID              string // a sub-agent's id
	X, Y                 int
	col                  float64
	depth                int
}

type graphEdge struct {
	Path   string // SVG path data
	Label  string
	LX, LY int
	Dashed bool
}

type workflowGraph struct {
	Nodes     []*graphNode
	Edges     []graphEdge
	W, H      int
	Truncated bool
}

// ViewBox is the SVG's viewBox attribute.
func (g *workflowGraph) ViewBox() string { return fmt.Sprintf("0 0 %d %d", g.W, g.H) }

type edgeRef struct {
	from, to *graphNode
	label    string
	dashed   bool
}

type layout struct {
	g      *workflowGraph
	byID   map[string]*graphNode
	edges  []edgeRef
	next   float64 // the next free leaf column
	retrys []struct {
		from   *graphNode
		target string
		label  string
	}
}

// drawWorkflow lays out a definition ({name, child_steps: […]}).
func drawWorkflow(def map[string]any) *workflowGraph {
	l := &layout{g: &workflowGraph{}, byID: map[string]*graphNode{}}
	name, _ := def["name"].(string)
	if name == "" {
		name = "start"
	}
	root := l.node("", name, "trigger", 0)
	children := steps(def["child_steps"])
	l.place(root, [][2]any{{"", children}}, nil)
	for _, r := range l.retrys {
		if t, ok := l.byID[r.target]; ok {
			l.edges = append(l.edges, edgeRef{r.from, t, r.label, true})
		}
	}
	l.finish()
	return l.g
}

func steps(v any) []map[string]any {
	list, _ := v.([]any)
	out := make([]map[string]any, 0, len(list))
	for _, s := range list {
		if m, ok := s.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

func (l *layout) node(id, name, typ string, depth int) *graphNode {
	kind := "step"
	switch {
	case typ == "trigger":
		kind = "trigger"
	case typ == "call_agent":
		kind = "agent"
	case typ == "if_else" || typ == "switch" || typ == "gate":
		kind = "branch"
	case typ == "for_each" || typ == "retry":
		kind = "loop"
	}
	n := &graphNode{ID: id, Name: clip(name, 22), Type: clip(typ, 24), Kind: kind, depth: depth}
	l.g.Nodes = append(l.g.Nodes, n)
	if id != "" {
		l.byID[id] = n
	}
	return n
}

// step adds a step and everything under it at depth; it returns the node
// and the deepest depth used, and the leaves (steps nothing follows).
func (l *layout) step(s map[string]any, depth int) (*graphNode, int, []*graphNode) {
	id, _ := s["id"].(string)
	name, _ := s["name"].(string)
	typ, _ := s["step_type"].(string)
	if name == "" {
		name = id
	}
	n := l.node(id, name, typ, depth)
	if typ == "call_agent" {
		n.AgentID, _ = s["agent_id"].(string)
	}
	if typ == "retry" {
		target, _ := s["target_step_id"].(string)
		l.retrys = append(l.retrys, struct {
			from   *graphNode
			target string
			label  string
		}{n, target, fmt.Sprintf("retry ≤%v", s["max_retries"])})
	}
	var branches [][2]any
	switch typ {
	case "if_else":
		branches = append(branches, [2]any{"then", steps(s["then_steps"])})
		if e := steps(s["else_steps"]); len(e) > 0 {
			branches = append(branches, [2]any{"else", e})
		}
	case "switch":
		cases, _ := s["cases"].([]any)
		for _, c := range cases {
			cm, _ := c.(map[string]any)
			branches = append(branches, [2]any{"= " + clip(fmt.Sprint(cm["match"]), 14), steps(cm["steps"])})
		}
		if e := steps(s["else_steps"]); len(e) > 0 {
			branches = append(branches, [2]any{"else", e})
		}
	case "for_each":
		branches = append(branches, [2]any{"each", steps(s["body"])})
	}
	deepest, leaves := l.place(n, branches, steps(s["child_steps"]))
	return n, deepest, leaves
}

// place lays out a node's branches (labelled subtrees) and then its
// continuation (child_steps), below the deepest branch, joined from the
// branches' leaves. Without branches, child_steps hang from the node.
func (l *layout) place(n *graphNode, branches [][2]any, continuation []map[string]any) (int, []*graphNode) {
	if len(branches) == 1 && branches[0][0] == "" { // the root's children
		continuation, branches = branches[0][1].([]map[string]any), nil
	}
	deepest := n.depth
	var cols []float64
	var branchLeaves []*graphNode
	for _, b := range branches {
		for _, s := range b[1].([]map[string]any) {
			if len(l.g.Nodes) >= maxNodes {
				l.g.Truncated = true
				break
			}
			c, d, leaves := l.step(s, n.depth+1)
			l.edges = append(l.edges, edgeRef{n, c, b[0].(string), false})
			cols = append(cols, c.col)
			deepest = max(deepest, d)
			branchLeaves = append(branchLeaves, leaves...)
		}
	}
	var leaves []*graphNode
	for _, s := range continuation {
		if len(l.g.Nodes) >= maxNodes {
			l.g.Truncated = true
			break
		}
		c, d, ls := l.step(s, deepest+1)
		if len(branches) > 0 {
			for _, from := range branchLeaves {
				l.edges = append(l.edges, edgeRef{from, c, "", true})
			}
			if len(branchLeaves) == 0 {
				l.edges = append(l.edges, edgeRef{n, c, "", false})
			}
		} else {
			l.edges = append(l.edges, edgeRef{n, c, "", false})
		}
		cols = append(cols, c.col)
		leaves = append(leaves, ls...)
		deepest = max(deepest, d)
	}
	if len(cols) == 0 {
		n.col = l.next
		l.next++
		if len(branchLeaves) > 0 {
			return deepest, branchLeaves
		}
		return deepest, []*graphNode{n}
	}
	sum := 0.0
	for _, c := range cols {
		sum += c
	}
	n.col = sum / float64(len(cols))
	if len(continuation) == 0 {
		leaves = branchLeaves
	}
	return deepest, leaves
}

func (l *layout) finish() {
	maxDepth := 0
	for _, n := range l.g.Nodes {
		n.X = margin + int(n.col*colW)
		n.Y = margin + n.depth*rowH
		maxDepth = max(maxDepth, n.depth)
	}
	l.g.W = margin*2 + int(max(l.next, 1)*colW) - (colW - nodeW)
	l.g.H = margin*2 + maxDepth*rowH + nodeH
	for _, e := range l.edges {
		x1, y1 := e.from.X+nodeW/2, e.from.Y+nodeH
		x2, y2 := e.to.X+nodeW/2, e.to.Y
		var path string
		if y2 <= y1 { // a retry going back up: around the right side
			rx := max(e.from.X, e.to.X) + nodeW + 12
			path = fmt.Sprintf("M%d %d H%d V%d H%d", e.from.X+nodeW, e.from.Y+nodeH/2, rx, e.to.Y+nodeH/2, e.to.X+nodeW)
			l.g.Edges = append(l.g.Edges, graphEdge{Path: path, Label: e.label, LX: rx + 4, LY: (e.from.Y + e.to.Y + nodeH) / 2, Dashed: true})
			continue
		}
		mid := (y1 + y2) / 2
		path = fmt.Sprintf("M%d %d C%d %d %d %d %d %d", x1, y1, x1, mid, x2, mid, x2, y2)
		l.g.Edges = append(l.g.Edges, graphEdge{Path: path, Label: e.label, LX: (x1+x2)/2 + 4, LY: mid, Dashed: e.dashed})
	}
}

func clip(s string, n int) string {
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
