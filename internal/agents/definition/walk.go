package definition

import "github.com/agentry/agentry/internal/agents/definition/canonjson"

// Relation says how a step hangs from its parent.
type Relation string

// The ways a step can be nested.
const (
	RelRoot  Relation = "root"       // in the definition's child_steps
	RelChild Relation = "child_step" // in a step's child_steps
	RelThen  Relation = "then_step"  // in if_else then_steps
	RelElse  Relation = "else_step"  // in if_else or switch else_steps
	RelCase  Relation = "case_step"  // in a switch case's steps
	RelBody  Relation = "body_step"  // in a for_each body
)

// Visit is one step seen by Walk, with where it sits in the tree.
type Visit struct {
	Step      *Step
	Path      string   // dotted path of the step object, under the walk's base path
	Parent    *Step    // nil for root steps
	Relation  Relation // how Step hangs from Parent
	Ancestors []*Step  // outermost first; excludes Step; shared, do not retain
	InBranch  bool     // inside then_steps/else_steps/cases of some ancestor
	InBody    bool     // inside the body of some for_each
	Depth     int      // 0 for root steps
}

// Walk calls fn for every step in depth-first order (a step before its
// sub-trees; then_steps, else_steps, cases, body, then child_steps). base is
// the path of the definition object inside the payload ("" for a bare
// definition, "agent.definition" for an export). Returning false from fn
// skips that step's sub-trees.
func (d *Definition) Walk(base string, fn func(v Visit) bool) {
	if d == nil {
		return
	}
	w := walker{fn: fn}
	key := d.stepsKey
	if key == "" {
		key = keyChildSteps
	}
	w.list(d.Steps, canonjson.Key(base, key), nil, RelRoot, false, false, 0)
}

// AllSteps returns every step of the tree in Walk order.
func (d *Definition) AllSteps() []*Step {
	var out []*Step
	d.Walk("", func(v Visit) bool {
		out = append(out, v.Step)
		return true
	})
	return out
}

// StepCount is the number of steps in the whole tree, sub-trees included.
func (d *Definition) StepCount() int {
	return len(d.AllSteps())
}

// Find returns the step with the given id, or nil.
func (d *Definition) Find(id string) *Step {
	var found *Step
	d.Walk("", func(v Visit) bool {
		if found == nil && v.Step.ID == id {
			found = v.Step
		}
		return found == nil
	})
	return found
}

type walker struct {
	fn        func(Visit) bool
	ancestors []*Step
}

func (w *walker) list(steps []*Step, path string, parent *Step, rel Relation, inBranch, inBody bool, depth int) {
	for i, s := range steps {
		if s == nil {
			continue
		}
		w.step(s, canonjson.Index(path, i), parent, rel, inBranch, inBody, depth)
	}
}

func (w *walker) step(s *Step, path string, parent *Step, rel Relation, inBranch, inBody bool, depth int) {
	v := Visit{Step: s, Path: path, Parent: parent, Relation: rel, Ancestors: w.ancestors,
		InBranch: inBranch, InBody: inBody, Depth: depth}
	if !w.fn(v) {
		return
	}
	w.ancestors = append(w.ancestors, s)
	defer func() { w.ancestors = w.ancestors[:len(w.ancestors)-1] }()
	d := depth + 1
	w.list(s.Then, canonjson.Key(path, keyThenSteps), s, RelThen, true, inBody, d)
	w.list(s.Else, canonjson.Key(path, keyElseSteps), s, RelElse, true, inBody, d)
	for i, c := range s.Cases {
		if c == nil {
			continue
		}
		cp := canonjson.Key(canonjson.Index(canonjson.Key(path, keyCases), i), keyCaseSteps)
		w.list(c.Steps, cp, s, RelCase, true, inBody, d)
	}
	w.list(s.Body, canonjson.Key(path, keyBody), s, RelBody, inBranch, true, d)
	w.list(s.Children, canonjson.Key(path, keyChildSteps), s, RelChild, inBranch, inBody, d)
}
