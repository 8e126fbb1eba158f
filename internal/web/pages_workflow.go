package web

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/agents/definition/canonjson"
)

func init() { registerArea((*Console).workflowRoutes) }

func (c *Console) workflowRoutes() {
	c.page("GET "+Prefix+"agents/{id}/workflow", c.workflowPage)
	c.page("POST "+Prefix+"agents/{id}/workflow", c.workflowSave)
}

// maxDefinitionBytes bounds the editor's text (the form's own bound is
// maxFormBytes; the API applies its own limit too).
const maxDefinitionBytes = maxFormBytes - 64<<10

type workflowView struct {
	Agent    *client.Agent
	Text     string // the editor's content
	ChangeID string
	Problems []problem
	Graph    *workflowGraph
	Saved    bool
	Conflict string // the API's sentence: who changed it, and when
	Notice   string
}

func (v workflowView) flash() string { return v.Notice }

// HasErrors reports whether any problem is an error (not a warning).
func (v workflowView) HasErrors() bool {
	for _, p := range v.Problems {
		if p.Severity == "error" {
			return true
		}
	}
	return false
}

// canonical is the definition as the editor shows it: canonical JSON
// (sorted keys, two-space indent), whose positions locate problems.
func canonical(raw []byte) (string, canonjson.Positions, any, error) {
	v, _, err := canonjson.Parse(raw)
	if err != nil {
		return "", nil, nil, err
	}
	text, at := canonjson.Print(v)
	return text, at, v, nil
}

func (c *Console) workflowPage(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	id := req.PathValue("id")
	a, err := cl.GetAgent(req.Ctx(), id)
	if err != nil {
		return err
	}
	d, err := cl.GetAgentDefinition(req.Ctx(), id)
	if err != nil {
		return err
	}
	text, at, v, err := canonical(d.Definition)
	if err != nil {
		return err
	}
	view := workflowView{Agent: a, Text: text, ChangeID: d.ChangeID, Problems: warnings(d.Warnings, at), Graph: graphOf(v)}
	if req.URL.Query().Get("done") == "saved" {
		view.Notice = "Saved."
	}
	return req.Page(http.StatusOK, "workflow.html", a.Name+" · workflow", "agents", view)
}

// workflowSave validates the editor's text and saves it through the API
// with the change id it was read at (optimistic locking). Syntax errors
// are found here, positioned in the text as typed; the API's errors are
// positioned in the canonical text, which the editor then shows.
func (c *Console) workflowSave(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	id := req.PathValue("id")
	a, err := cl.GetAgent(req.Ctx(), id)
	if err != nil {
		return err
	}
	text, changeID := req.PostFormValue("definition"), req.PostFormValue("change_id")
	view := workflowView{Agent: a, Text: text, ChangeID: changeID}
	if len(text) > maxDefinitionBytes {
		view.Problems = []problem{{Severity: "error", Message: "The definition is larger than " + strconv.Itoa(maxDefinitionBytes>>10) + " KiB."}}
		return req.Page(http.StatusRequestEntityTooLarge, "workflow.html", a.Name+" · workflow", "agents", view)
	}
	canon, at, v, err := canonical([]byte(text))
	var se *canonjson.SyntaxError
	if errors.As(err, &se) {
		view.Problems = []problem{{Severity: "error", Message: "Invalid JSON: " + se.Msg, Line: se.Line, Column: se.Column}}
		return req.Page(http.StatusUnprocessableEntity, "workflow.html", a.Name+" · workflow", "agents", view)
	}
	if err != nil {
		return err
	}
	view.Graph = graphOf(v)
	saved, err := cl.UpdateAgentDefinition(req.Ctx(), id, changeID, json.RawMessage(canon))
	if probs, ok := apiProblems(err, at); ok {
		view.Text, view.Problems = canon, probs
		return req.Page(http.StatusUnprocessableEntity, "workflow.html", a.Name+" · workflow", "agents", view)
	}
	if errors.Is(err, client.ErrConflict) {
		var ae *client.APIError
		errors.As(err, &ae)
		view.Conflict = ae.Message
		return req.Page(http.StatusConflict, "workflow.html", a.Name+" · workflow", "agents", view)
	}
	if err != nil {
		return err
	}
	if len(saved.Warnings) == 0 {
		return req.Redirect(Prefix + "agents/" + id + "/workflow?done=saved")
	}
	// Saved with warnings: show them at once, on the saved text.
	text, at, v, err = canonical(saved.Definition)
	if err != nil {
		return err
	}
	view = workflowView{Agent: a, Text: text, ChangeID: saved.ChangeID, Problems: warnings(saved.Warnings, at), Graph: graphOf(v),
		Saved: true, Notice: "Saved, with warnings."}
	return req.Page(http.StatusOK, "workflow.html", a.Name+" · workflow", "agents", view)
}

// warnings are the API's warnings as problems at their positions.
func warnings(ws []map[string]string, at canonjson.Positions) []problem {
	out := make([]problem, 0, len(ws))
	for _, w := range ws {
		sev := w["severity"]
		if sev == "" {
			sev = "warning"
		}
		out = append(out, positioned(problem{Severity: sev, Path: w["path"], Message: w["message"]}, at))
	}
	return out
}

func graphOf(v any) *workflowGraph {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	return drawWorkflow(m)
}
