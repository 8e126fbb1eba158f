package web

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/agentry/agentry/client"
)

// Memory banks created (from one of the API's templates or from scratch:
// POST /memory_banks), their settings changed (PUT /memory_banks/{id}:
// name, description, retention, the compaction thresholds and prompt;
// the type, mode and embedding settings are fixed at creation), and
// deleted (DELETE /memory_banks/{id}, refused with 409 while an agent's
// workflow names the bank). The API judges every value; its refusals
// show next to the form with what was typed kept.

func init() { registerArea((*Console).memorySettingsRoutes) }

func (c *Console) memorySettingsRoutes() {
	c.page("GET "+Prefix+"memory/new", c.memoryNewPage)
	c.page("POST "+Prefix+"memory/new", c.memoryCreate)
	c.page("GET "+Prefix+"memory/{id}/settings", c.memorySettingsPage)
	c.page("POST "+Prefix+"memory/{id}/settings", c.memorySettingsSave)
	c.page("POST "+Prefix+"memory/{id}/delete", c.memoryDelete)
}

// memoryBankForm is the bank form as typed (numbers as text, so a refused
// value comes back as it was typed).
type memoryBankForm struct {
	Name, Description, Type, Mode, EmbeddingModel, Dimensions, ChunkSize, ChunkOverlap string
	RetentionDays, MaxTurns, MaxSizeTokens, MaxAgeDays, CompactionPrompt               string
}

// memoryTemplate is one of the API's ready-made settings.
type memoryTemplate struct {
	Index                      int
	Name, Description, UseCase string
}

type memoryNewView struct {
	Templates []memoryTemplate
	Template  int // the chosen template's index, -1 for none
	Form      memoryBankForm
	Modes     []string
	Problems  []problem
}

// memoryModes are the modes of a bank (docs/memory.md).
var memoryModes = []string{"fast_and_cheap", "balanced", "slow_and_thorough", "custom"}

// settingText reads a template setting as form text.
func settingText(m map[string]any, key string) string {
	switch v := m[key].(type) {
	case nil:
		return ""
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	default:
		return fmt.Sprint(v)
	}
}

func (c *Console) memoryTemplates(req *Request) ([]map[string]any, []memoryTemplate, error) {
	cl, err := req.API()
	if err != nil {
		return nil, nil, err
	}
	raw, err := cl.MemoryBankTemplates(req.Ctx())
	if err != nil {
		return nil, nil, err
	}
	out := make([]memoryTemplate, len(raw))
	for i, t := range raw {
		out[i] = memoryTemplate{Index: i, Name: settingText(t, "name"), Description: settingText(t, "description"), UseCase: settingText(t, "use_case")}
	}
	return raw, out, nil
}

func (c *Console) memoryNewPage(req *Request) error {
	raw, tpls, err := c.memoryTemplates(req)
	if err != nil {
		return err
	}
	v := memoryNewView{Templates: tpls, Template: -1, Modes: memoryModes, Form: memoryBankForm{Type: "conversation", Mode: "fast_and_cheap", RetentionDays: "30"}}
	if n, err := strconv.Atoi(req.URL.Query().Get("template")); err == nil && n >= 0 && n < len(raw) {
		s, _ := raw[n]["settings"].(map[string]any)
		v.Template = n
		v.Form = memoryBankForm{Name: settingText(s, "name"), Description: settingText(s, "description"), Type: settingText(s, "type"),
			Mode: settingText(s, "mode"), EmbeddingModel: settingText(s, "embedding_model"), Dimensions: settingText(s, "dimensions"),
			ChunkSize: settingText(s, "chunk_size"), ChunkOverlap: settingText(s, "chunk_overlap"), RetentionDays: settingText(s, "retention_days"),
			MaxTurns: settingText(s, "max_turns"), MaxSizeTokens: settingText(s, "max_size_tokens"), MaxAgeDays: settingText(s, "max_age_days"),
			CompactionPrompt: settingText(s, "compaction_prompt")}
	}
	return req.Page(http.StatusOK, "memory_new.html", "New memory bank", "memory", v)
}

// readMemoryForm reads the posted bank form.
func readMemoryForm(req *Request) memoryBankForm {
	v := func(k string) string { return strings.TrimSpace(req.PostFormValue(k)) }
	return memoryBankForm{Name: v("name"), Description: v("description"), Type: v("type"), Mode: v("mode"),
		EmbeddingModel: v("embedding_model"), Dimensions: v("dimensions"), ChunkSize: v("chunk_size"), ChunkOverlap: v("chunk_overlap"),
		RetentionDays: v("retention_days"), MaxTurns: v("max_turns"), MaxSizeTokens: v("max_size_tokens"), MaxAgeDays: v("max_age_days"),
		CompactionPrompt: req.PostFormValue("compaction_prompt")}
}

func (c *Console) memoryCreate(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	f := readMemoryForm(req)
	var probs []problem
	in := client.CreateMemoryBankRequest{Name: f.Name, Description: optText(f.Description), Type: f.Type, Mode: f.Mode,
		EmbeddingModel: optText(f.EmbeddingModel), CompactionPrompt: optText(f.CompactionPrompt),
		Dimensions:    intField(f.Dimensions, "dimensions", "Dimensions", &probs),
		ChunkSize:     intField(f.ChunkSize, "chunk_size", "The chunk size", &probs),
		ChunkOverlap:  intField(f.ChunkOverlap, "chunk_overlap", "The chunk overlap", &probs),
		RetentionDays: intField(f.RetentionDays, "retention_days", "Retention", &probs),
		MaxTurns:      intField(f.MaxTurns, "max_turns", "Max entries per key", &probs),
		MaxSizeTokens: intField(f.MaxSizeTokens, "max_size_tokens", "Max tokens per key", &probs),
		MaxAgeDays:    intField(f.MaxAgeDays, "max_age_days", "Max age", &probs)}
	status := http.StatusUnprocessableEntity
	if len(probs) == 0 {
		b, err := cl.CreateMemoryBank(req.Ctx(), in)
		if err == nil {
			return req.Redirect(Prefix + "memory/" + b.ID + "?done=created")
		}
		var ok bool
		if probs, status, ok = formRefusal(err); !ok {
			return err
		}
	}
	_, tpls, err := c.memoryTemplates(req)
	if err != nil {
		return err
	}
	return req.Page(status, "memory_new.html", "New memory bank", "memory",
		memoryNewView{Templates: tpls, Template: -1, Form: f, Modes: memoryModes, Problems: probs})
}

type memorySettingsView struct {
	Bank     *client.MemoryBank
	Form     memoryBankForm
	Agents   []client.MemoryBankAgent
	Problems []problem
	Notice   string
}

func (v memorySettingsView) flash() string { return v.Notice }

func numText(n *int) string {
	if n == nil || *n == 0 {
		return ""
	}
	return strconv.Itoa(*n)
}

// renderMemorySettings shows the settings form: the bank's current
// settings (fromBank), or as typed after a refusal.
func (c *Console) renderMemorySettings(req *Request, status int, v memorySettingsView, fromBank bool) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	id := req.PathValue("id")
	if v.Bank, err = cl.GetMemoryBank(req.Ctx(), id); err != nil {
		return err
	}
	if v.Agents, err = cl.MemoryBankAgents(req.Ctx(), id); err != nil {
		return err
	}
	if fromBank {
		b := v.Bank
		v.Form = memoryBankForm{Name: b.Name, Description: deref(b.Description), CompactionPrompt: deref(b.CompactionPrompt),
			RetentionDays: numText(b.RetentionDays), MaxTurns: numText(b.MaxTurns), MaxSizeTokens: numText(b.MaxSizeTokens), MaxAgeDays: numText(b.MaxAgeDays)}
	}
	return req.Page(status, "memory_settings.html", "Settings: "+v.Bank.Name, "memory", v)
}

func (c *Console) memorySettingsPage(req *Request) error {
	var v memorySettingsView
	if req.URL.Query().Get("done") == "saved" {
		v.Notice = "Settings saved."
	}
	return c.renderMemorySettings(req, http.StatusOK, v, true)
}

// memorySettingsSave sends every field of the form: an emptied text
// clears it (""), an emptied number clears it (0), as the API's PUT does.
func (c *Console) memorySettingsSave(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	id := req.PathValue("id")
	f := readMemoryForm(req)
	var probs []problem
	num := func(text, field, what string) *int {
		if n := intField(text, field, what, &probs); n != nil {
			return n
		}
		zero := 0
		return &zero
	}
	in := client.UpdateMemoryBankRequest{Name: &f.Name, Description: &f.Description, CompactionPrompt: &f.CompactionPrompt,
		RetentionDays: num(f.RetentionDays, "retention_days", "Retention"),
		MaxTurns:      num(f.MaxTurns, "max_turns", "Max entries per key"),
		MaxSizeTokens: num(f.MaxSizeTokens, "max_size_tokens", "Max tokens per key"),
		MaxAgeDays:    num(f.MaxAgeDays, "max_age_days", "Max age")}
	status := http.StatusUnprocessableEntity
	if len(probs) == 0 {
		_, err := cl.UpdateMemoryBank(req.Ctx(), id, in)
		if err == nil {
			return req.Redirect(Prefix + "memory/" + id + "/settings?done=saved")
		}
		var ok bool
		if probs, status, ok = formRefusal(err); !ok {
			return err
		}
	}
	return c.renderMemorySettings(req, status, memorySettingsView{Form: f, Problems: probs}, false)
}

// memoryDelete deletes a bank with its entries; while an agent's
// workflow names it, the API's 409 shows on the settings page.
func (c *Console) memoryDelete(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	if err := cl.DeleteMemoryBank(req.Ctx(), req.PathValue("id")); err != nil {
		probs, status, ok := formRefusal(err)
		if !ok {
			return err
		}
		return c.renderMemorySettings(req, status, memorySettingsView{Problems: probs}, true)
	}
	return req.Redirect(Prefix + "memory?done=deleted")
}
