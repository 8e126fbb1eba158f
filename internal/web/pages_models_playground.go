package web

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/agentry/agentry/client"
)

// The playground: one prompt across several models side by side, with an
// evaluator model's judgment. An experiment runs in the background; its
// page polls a fragment (htmx, every second) until the experiment is
// final, then stops.

func (c *Console) playgroundRoutes() {
	c.page("GET "+Prefix+"models/playground", c.playgroundPage)
	c.page("POST "+Prefix+"models/playground", c.playgroundCreate)
	c.page("GET "+Prefix+"models/playground/{experiment_id}", c.experimentPage)
	c.page("GET "+Prefix+"models/playground/{experiment_id}/results", c.experimentResults)
	c.page("POST "+Prefix+"models/playground/{experiment_id}/cancel", c.experimentCancel)
}

// playgroundForm is the form's content, kept on a refusal.
type playgroundForm struct {
	Prompt, SystemPrompt, Mode, Complexity, Evaluator, Reference string
	// JSONTemplate is the advanced mode's payload, sent as written.
	JSONTemplate string
	ModelIDs     []string
}

// Picked reports whether the form selected a model.
func (f playgroundForm) Picked(id string) bool { return slices.Contains(f.ModelIDs, id) }

type playgroundView struct {
	Form        playgroundForm
	Models      []client.Model // the chat models of the catalog
	Experiments []client.ExperimentSummary
	Problem     string
}

// chatModels are the catalog's models the playground can ask: those that
// write tokens (generators of images, audio or video are priced per unit,
// and embedding models write nothing).
func chatModels(groups []client.ProviderGroup) []client.Model {
	var out []client.Model
	for _, g := range groups {
		for _, m := range g.Models {
			if m.GenerationCreditsPerUnit == nil && m.MaxOutputTokens > 0 {
				out = append(out, m)
			}
		}
	}
	return out
}

func (c *Console) playgroundPage(req *Request) error {
	v := playgroundView{Form: playgroundForm{Mode: "prompt", Complexity: "medium"}}
	return c.renderPlayground(req, v, http.StatusOK)
}

func (c *Console) renderPlayground(req *Request, v playgroundView, status int) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	groups, err := cl.ListModels(req.Ctx(), client.ModelFilter{})
	if err != nil {
		return err
	}
	v.Models = chatModels(groups)
	p, err := cl.ListExperiments(req.Ctx(), client.ExperimentListOptions{Limit: 20})
	if err != nil {
		return err
	}
	v.Experiments = p.Items
	return req.Page(status, "models_playground.html", "Playground", "models", v)
}

func (c *Console) playgroundCreate(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	if err := req.ParseForm(); err != nil {
		return req.Error(http.StatusBadRequest, "The form could not be read.")
	}
	f := playgroundForm{Prompt: req.PostForm.Get("prompt"), SystemPrompt: req.PostForm.Get("system_prompt"),
		Mode: req.PostForm.Get("evaluation_mode"), Complexity: req.PostForm.Get("evaluation_complexity"),
		Evaluator: strings.TrimSpace(req.PostForm.Get("evaluator_model_id")), Reference: req.PostForm.Get("reference"),
		JSONTemplate: strings.TrimSpace(req.PostForm.Get("json_template")), ModelIDs: req.PostForm["model_ids"]}
	in := client.PlaygroundCreateRequest{Prompt: f.Prompt, SystemPrompt: f.SystemPrompt, ModelIDs: f.ModelIDs,
		EvaluationMode: f.Mode, EvaluationComplexity: f.Complexity, EvaluatorModelID: f.Evaluator,
		JSONTemplate: f.JSONTemplate}
	if strings.TrimSpace(f.Reference) != "" {
		in.SelectedStepOutput, in.IncludeStepOutputInEvaluation = f.Reference, true
	}
	if in.ModelIDs == nil {
		in.ModelIDs = []string{} // the API names the field rather than guessing
	}
	out, err := cl.CreateExperiment(req.Ctx(), in)
	if err != nil {
		var credits *client.InsufficientCreditsError
		if msg, ok := apiProblem422(err); ok {
			return c.renderPlayground(req, playgroundView{Form: f, Problem: msg}, http.StatusUnprocessableEntity)
		}
		if errors.As(err, &credits) {
			return c.renderPlayground(req, playgroundView{Form: f, Problem: "The account's credits do not cover this experiment."}, http.StatusPaymentRequired)
		}
		return err
	}
	return req.Redirect(Prefix + "models/playground/" + url.PathEscape(out.ExperimentID))
}

// experimentResultView is one model's column.
type experimentResultView struct {
	client.ExperimentModelResult
	Best  bool
	Rank  int    // 1 for the best; 0 when not ranked
	Score string // the score as text, "" when none
	Bar   int    // the score bar's width, 0–100
}

// experimentView is what the results fragment shows.
type experimentView struct {
	Experiment *client.Experiment
	Results    []experimentResultView
	Ranking    *client.ExperimentRanking
	Totals     *client.ExperimentTotals
	Final      bool
	Progress   string
	CSRF       string // the fragment's cancel form's token
}

func readExperiment(req *Request, cl *client.Client) (*experimentView, error) {
	e, err := cl.GetExperiment(req.Ctx(), req.PathValue("experiment_id"))
	if err != nil {
		return nil, err
	}
	v := &experimentView{Experiment: e, Final: client.ExperimentTerminal(e.Status), CSRF: req.CSRF()}
	if e.ProgressCurrent != nil && e.ProgressTotal != nil {
		v.Progress = strconv.Itoa(*e.ProgressCurrent) + " of " + strconv.Itoa(*e.ProgressTotal)
	}
	res, err := e.Results()
	if err != nil {
		return nil, err
	}
	if res == nil {
		return v, nil
	}
	v.Ranking, v.Totals = res.Evaluation, &res.Totals
	rank := map[string]int{}
	best := ""
	if res.Evaluation != nil {
		for i, id := range res.Evaluation.Ranking {
			rank[id] = i + 1
		}
		if res.Evaluation.BestModelID != nil {
			best = *res.Evaluation.BestModelID
		}
	}
	for _, m := range res.Models {
		r := experimentResultView{ExperimentModelResult: m, Rank: rank[m.ModelID], Best: best != "" && m.ModelID == best}
		if m.Evaluation != nil && m.Evaluation.Score != nil {
			s := min(max(*m.Evaluation.Score, 0), 1)
			r.Score, r.Bar = strconv.FormatFloat(*m.Evaluation.Score, 'f', 2, 64), int(s*100+0.5)
		}
		v.Results = append(v.Results, r)
	}
	return v, nil
}

func (c *Console) experimentPage(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	v, err := readExperiment(req, cl)
	if err != nil {
		return err
	}
	return req.Page(http.StatusOK, "models_experiment.html", "Experiment", "models", v)
}

// experimentResults is the fragment the page polls while the experiment runs.
func (c *Console) experimentResults(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	v, err := readExperiment(req, cl)
	if err != nil {
		return err
	}
	return req.Fragment(http.StatusOK, "models_experiment.html", "experiment-results", v)
}

func (c *Console) experimentCancel(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	id := req.PathValue("experiment_id")
	back := Prefix + "models/playground/" + url.PathEscape(id)
	if _, err := cl.CancelExperiment(req.Ctx(), id); err != nil {
		if errors.Is(err, client.ErrConflict) {
			return req.Redirect(back) // it finished meanwhile: its page says how
		}
		return err
	}
	return req.Redirect(back)
}
