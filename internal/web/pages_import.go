package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/agentry/agentry/client"
)

func init() { registerArea((*Console).importRoutes) }

func (c *Console) importRoutes() {
	c.page("GET "+Prefix+"agents/import", c.importPage)
	c.page("POST "+Prefix+"agents/import/preview", c.importPreview)
	c.page("POST "+Prefix+"agents/import", c.importSave)
}

// maxImportBytes bounds an uploaded export (the API's JSON body limit,
// --max-body-bytes, applies as well).
const maxImportBytes = 10 << 20

type importView struct {
	Name     string
	Payload  string // the export, carried from the preview to the save
	Preview  *client.ImportPreview
	Remap    map[string]string
	Problems []problem
	Source   string // the API's canonical echo of an invalid payload
}

func (c *Console) importPage(req *Request) error {
	return req.Page(http.StatusOK, "agents_import.html", "Import an agent", "agents", importView{})
}

// importPreview reads the uploaded export and asks the API what it holds
// and what this account lacks.
func (c *Console) importPreview(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	f, _, err := req.FormFile("file")
	if err != nil {
		return req.Page(http.StatusUnprocessableEntity, "agents_import.html", "Import an agent", "agents",
			importView{Problems: []problem{{Severity: "error", Message: "Choose an export file (.json) to import."}}})
	}
	defer f.Close()
	payload, err := io.ReadAll(io.LimitReader(f, maxImportBytes+1))
	if err != nil {
		return err
	}
	if len(payload) > maxImportBytes {
		return req.Page(http.StatusRequestEntityTooLarge, "agents_import.html", "Import an agent", "agents",
			importView{Problems: []problem{{Severity: "error", Message: "The file is larger than 10 MiB."}}})
	}
	v := importView{Payload: string(payload)}
	p, err := cl.PreviewImport(req.Ctx(), bytes.NewReader(payload))
	if c.importFailed(req, &v, err) {
		return req.Page(http.StatusUnprocessableEntity, "agents_import.html", "Import an agent", "agents", v)
	}
	if err != nil {
		return err
	}
	v.Preview = p
	if p.AgentName != nil {
		v.Name = *p.AgentName
	}
	return req.Page(http.StatusOK, "agents_import.html", "Import an agent", "agents", v)
}

// importFailed turns an invalid payload into problems on v.
func (c *Console) importFailed(req *Request, v *importView, err error) bool {
	var ie *client.ImportError
	if errors.As(err, &ie) {
		v.Source = ie.Source
	}
	var pe *client.PayloadError
	if errors.As(err, &pe) {
		v.Problems = []problem{{Severity: "error", Message: pe.Error()}}
		return true
	}
	probs, ok := apiProblems(err, nil)
	if ok {
		v.Problems = probs
	}
	return ok
}

// importSave creates the agent from the payload, with the replacements
// chosen for the unresolved references.
func (c *Console) importSave(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	v := importView{Name: req.PostFormValue("name"), Payload: req.PostFormValue("payload"), Remap: map[string]string{}}
	for key, vals := range req.PostForm {
		if ref, ok := strings.CutPrefix(key, "remap."); ok && len(vals) == 1 && vals[0] != "" {
			v.Remap[ref] = vals[0]
		}
	}
	if !json.Valid([]byte(v.Payload)) {
		return req.Error(http.StatusUnprocessableEntity, "The export was lost on the way: upload it again.")
	}
	in := client.CreateAgentRequest{Name: v.Name, EntityRemap: v.Remap}
	a, err := cl.ImportAgent(req.Ctx(), in, strings.NewReader(v.Payload))
	if c.importFailed(req, &v, err) {
		// Show the preview again beside the problems, so the choices can be changed.
		if p, perr := cl.PreviewImport(req.Ctx(), strings.NewReader(v.Payload)); perr == nil {
			v.Preview = p
		}
		return req.Page(http.StatusUnprocessableEntity, "agents_import.html", "Import an agent", "agents", v)
	}
	if err != nil {
		return err
	}
	if len(a.ImportWarnings) == 0 {
		return req.Redirect(Prefix + "agents/" + a.ID + "?done=imported")
	}
	// What the import skipped is said once, in the create's answer: show
	// it now, on the new agent's page.
	req.SetPathValue("id", a.ID)
	av, err := c.loadAgent(req)
	if err != nil {
		return err
	}
	av.Notice = "Imported, with what was skipped listed below."
	for _, w := range a.ImportWarnings {
		av.Problems = append(av.Problems, problem{Severity: "warning", Path: w.Category, Message: w.Message})
	}
	return req.Page(http.StatusCreated, "agents_agent.html", av.Agent.Name, "agents", av)
}
