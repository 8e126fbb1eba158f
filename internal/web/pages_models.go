package web

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/agentry/agentry/client"
)

// The models area: the catalog with prices, capabilities and lifecycle
// and the account's default model (this file), a model's page with its
// usage and recommended replacements (this file), the model alerts
// (pages_models_alerts.go) and the playground (pages_models_playground.go).
// Every read and action goes through the API's /models operations.

func init() {
	registerArea((*Console).modelsRoutes)
	funcs["creditsPer1k"] = creditsPer1k
}

func (c *Console) modelsRoutes() {
	c.page("GET "+Prefix+"models", c.modelsCatalog)
	c.page("POST "+Prefix+"models/default", c.modelsSetDefault)
	c.page("GET "+Prefix+"models/{model_id}", c.modelPage)
	c.modelAlertRoutes()
	c.playgroundRoutes()
}

// creditsPer1k shows a credit price per 1,000 tokens, or a dash when there is none.
func creditsPer1k(v *float64) string {
	if v == nil {
		return "—"
	}
	return strconv.FormatFloat(*v, 'f', -1, 64)
}

// badge is a lifecycle or status mark beside a model's name.
type modelBadge struct{ Class, Label string }

// parseDate reads the catalog's dates: RFC 3339 or a plain day.
func catalogDate(s *string) (time.Time, bool) {
	if s == nil || *s == "" {
		return time.Time{}, false
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02"} {
		if t, err := time.Parse(layout, *s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// lifecycle is a model's badges at now: deprecated, retiring on a day or
// retired, new, and whether it is the account's default or last used.
func modelBadges(m client.Model, accountDefault string, now time.Time) []modelBadge {
	var out []modelBadge
	if t, ok := catalogDate(m.DeprecatedAt); ok && !t.After(now) {
		out = append(out, modelBadge{"badge-deprecated", "deprecated"})
	}
	if t, ok := catalogDate(m.SunsetAt); ok {
		if t.After(now) {
			out = append(out, modelBadge{"badge-retiring", "retiring " + t.UTC().Format("2006-01-02")})
		} else {
			out = append(out, modelBadge{"badge-retired", "retired " + t.UTC().Format("2006-01-02")})
		}
	}
	if m.IsNew {
		out = append(out, modelBadge{"badge-new", "new"})
	}
	if m.ID == accountDefault || m.ModelID == accountDefault {
		out = append(out, modelBadge{"badge-default", "account default"})
	}
	if m.LastUsed {
		out = append(out, modelBadge{"", "last used"})
	}
	return out
}

// capabilities names what a model supports, briefly.
func modelCapabilities(m client.Model) []string {
	var out []string
	for _, c := range []struct {
		on   bool
		name string
	}{{m.SupportsToolUse, "tools"}, {m.SupportsThinking, "thinking"}, {m.SupportsStructuredOutput, "structured output"},
		{m.SupportsStreaming, "streaming"}} {
		if c.on {
			out = append(out, c.name)
		}
	}
	for _, media := range m.SupportedInputMedia {
		if !strings.HasPrefix(media, "text") {
			out = append(out, media+" in")
		}
	}
	for _, media := range m.SupportedOutputMedia {
		if !strings.HasPrefix(media, "text") {
			out = append(out, media+" out")
		}
	}
	return out
}

type modelRow struct {
	client.Model
	Badges       []modelBadge
	Capabilities []string
}

type providerRows struct {
	Provider string
	Models   []modelRow
}

// catalogFilter is the catalog's filter, read from the query string.
type catalogFilter struct {
	Provider, Input string
	Tools, Thinking bool
}

type modelsCatalogView struct {
	Filter    catalogFilter
	Providers []string // every provider, for the filter
	Groups    []providerRows
	Count     int
	Default   *client.DefaultModel
	Models    []client.Model // every enabled model, for the default's choice
	Unread    int
	Problem   string
	Notice    string
}

func (v modelsCatalogView) flash() string { return v.Notice }

func (c *Console) modelsCatalog(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	q := req.URL.Query()
	f := catalogFilter{Provider: q.Get("provider"), Input: q.Get("input"), Tools: q.Get("tools") != "", Thinking: q.Get("thinking") != ""}
	v := modelsCatalogView{Filter: f, Notice: actionNotice(q.Get("done")), Problem: q.Get("problem")}
	all, err := cl.ListModels(req.Ctx(), client.ModelFilter{})
	if err != nil {
		return err
	}
	groups := all
	if f != (catalogFilter{}) {
		mf := client.ModelFilter{Provider: f.Provider, SupportsInputMedia: f.Input}
		yes := true
		if f.Tools {
			mf.SupportsToolUse = &yes
		}
		if f.Thinking {
			mf.SupportsThinking = &yes
		}
		if groups, err = cl.ListModels(req.Ctx(), mf); err != nil {
			if msg, ok := apiProblem422(err); ok {
				v.Problem, groups = msg, nil
			} else {
				return err
			}
		}
	}
	if v.Default, err = cl.GetDefaultModel(req.Ctx()); err != nil {
		return err
	}
	if v.Unread, err = cl.ModelAlertUnreadCount(req.Ctx()); err != nil {
		return err
	}
	accountDefault := ""
	if v.Default.AccountModelID != nil {
		accountDefault = *v.Default.AccountModelID
	}
	now := time.Now()
	for _, g := range all {
		v.Providers = append(v.Providers, g.Provider)
		v.Models = append(v.Models, g.Models...)
	}
	for _, g := range groups {
		rows := providerRows{Provider: g.Provider}
		for _, m := range g.Models {
			rows.Models = append(rows.Models, modelRow{Model: m, Badges: modelBadges(m, accountDefault, now), Capabilities: modelCapabilities(m)})
		}
		v.Count += len(rows.Models)
		v.Groups = append(v.Groups, rows)
	}
	status := http.StatusOK
	if v.Problem != "" {
		status = http.StatusUnprocessableEntity
	}
	return req.Page(status, "models_catalog.html", "Models", "models", v)
}

func (c *Console) modelsSetDefault(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	if err := req.ParseForm(); err != nil {
		return req.Error(http.StatusBadRequest, "The form could not be read.")
	}
	model := strings.TrimSpace(req.PostForm.Get("model_id"))
	if req.PostForm.Get("clear") != "" {
		model = ""
	}
	if _, err := cl.SetDefaultModel(req.Ctx(), model); err != nil {
		if msg, ok := apiProblem422(err); ok {
			return req.Redirect(pathWithProblem(Prefix+"models", msg) + "#default")
		}
		return err
	}
	return req.Redirect(pathWithDone(Prefix+"models", "default") + "#default")
}

type modelPageView struct {
	Model           *client.Model
	Badges          []modelBadge
	Capabilities    []string
	Usage           *client.ModelUsage
	Recommendations *client.ModelRecommendations
	Successor       string // the successor's name, when the catalog has it
}

func (c *Console) modelPage(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	id := req.PathValue("model_id")
	m, err := cl.GetModel(req.Ctx(), id)
	if err != nil {
		return err
	}
	def, err := cl.GetDefaultModel(req.Ctx())
	if err != nil {
		return err
	}
	v := modelPageView{Model: m, Badges: modelBadges(*m, ptrText(def.AccountModelID), time.Now()), Capabilities: modelCapabilities(*m)}
	if v.Usage, err = cl.GetModelUsage(req.Ctx(), m.ID); err != nil {
		return err
	}
	// Replacements matter for a model on its way out; ask for ones that
	// keep what it can do.
	if m.DeprecatedAt != nil || m.SunsetAt != nil || m.SuccessorModelID != nil {
		rec, err := cl.Recommendations(req.Ctx(), m.ID, client.ModelRequirements{ToolUse: m.SupportsToolUse,
			StructuredOutput: m.SupportsStructuredOutput})
		var ae *client.APIError
		switch {
		case err == nil:
			v.Recommendations = rec
		case errors.As(err, &ae) && (ae.StatusCode == http.StatusNotFound || ae.StatusCode == http.StatusUnprocessableEntity):
			// No replacements to suggest for this kind of model.
		default:
			return err
		}
	}
	return req.Page(http.StatusOK, "models_model.html", m.Name, "models", v)
}

func ptrText(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
