package web

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/agentry/agentry/client"
)

// Regression runs (an extension): an agent's recorded runs replayed on a
// version of its workflow in the background. The list page starts one and
// lists the agent's; the report page shows its progress (re-read every two
// seconds by htmx while it runs) and every changed output side by side.

func init() { registerArea((*Console).regressionsRoutes) }

func (c *Console) regressionsRoutes() {
	c.page("GET "+Prefix+"agents/{id}/regressions", c.regressionsList)
	c.page("POST "+Prefix+"agents/{id}/regressions", c.regressionStart)
	c.page("GET "+Prefix+"agents/{id}/regressions/{rid}", c.regressionReport)
	c.page("GET "+Prefix+"agents/{id}/regressions/{rid}/live", c.regressionLive)
	c.page("POST "+Prefix+"agents/{id}/regressions/{rid}/cancel", c.regressionCancel)
}

const (
	// regressionsPerPage is the regressions listed per page.
	regressionsPerPage = 20
	// defaultLastRuns is the form's default selection.
	defaultLastRuns = 20
)

// regressionForm is the start form as typed, kept when it is refused.
type regressionForm struct {
	Mode     string // "last" or "ids"
	LastRuns string
	RunIDs   string
	ChangeID string
}

// regressionRow is one regression of the list, with its figures as shown.
type regressionRow struct {
	client.Regression
	Before, After string
}

type regressionsListView struct {
	Agent    *client.Agent
	Rows     []regressionRow
	Total    int
	Pager    pager
	Form     regressionForm
	Problems []problem
}

// rate shows a pass rate in percent, or a dash before the first verdict.
func passRate(r *float64) string {
	if r == nil {
		return "–"
	}
	return strconv.FormatFloat(100**r, 'f', 1, 64) + "%"
}

func (c *Console) regressionsList(req *Request) error {
	return c.renderRegressions(req, http.StatusOK, regressionForm{Mode: "last", LastRuns: strconv.Itoa(defaultLastRuns)}, nil)
}

// renderRegressions reads the agent and its page of regressions and renders
// the list with the form (and the problems of a refused start).
func (c *Console) renderRegressions(req *Request, status int, form regressionForm, problems []problem) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	id := req.PathValue("id")
	agent, err := cl.GetAgent(req.Ctx(), id)
	if err != nil {
		return err
	}
	pageN, _ := strconv.Atoi(req.URL.Query().Get("page"))
	pageN = max(pageN, 1)
	list, err := cl.ListRegressions(req.Ctx(), id, client.RegressionListOptions{Page: pageN, Limit: regressionsPerPage})
	if err != nil {
		return err
	}
	v := regressionsListView{Agent: agent, Total: list.Total, Form: form, Problems: problems,
		Pager: pagerLinks(Prefix+"agents/"+id+"/regressions", "page", pageN, list.HasNext)}
	for _, r := range list.Items {
		v.Rows = append(v.Rows, regressionRow{Regression: r, Before: passRate(r.Report.PassRateBefore), After: passRate(r.Report.PassRateAfter)})
	}
	return req.Page(status, "regressions_list.html", "Regressions · "+agent.Name, "agents", v)
}

// regressionStart starts one from the form and lands on its report; a
// refusal (422 at a field, 402 over the balance, 409 paused) is shown next
// to the form.
func (c *Console) regressionStart(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	id := req.PathValue("id")
	form := regressionForm{Mode: req.FormValue("mode"), LastRuns: strings.TrimSpace(req.FormValue("last_runs")),
		RunIDs: req.FormValue("run_ids"), ChangeID: strings.TrimSpace(req.FormValue("change_id"))}
	body := client.RegressionRequest{ChangeID: form.ChangeID}
	if form.Mode == "ids" {
		for _, line := range strings.Split(form.RunIDs, "\n") {
			if s := strings.TrimSpace(line); s != "" {
				body.RunIDs = append(body.RunIDs, s)
			}
		}
		if len(body.RunIDs) == 0 {
			return c.renderRegressions(req, http.StatusUnprocessableEntity, form,
				[]problem{{Severity: "error", Path: "run_ids", Message: "Give at least one run id, one per line."}})
		}
	} else {
		form.Mode = "last"
		n, err := strconv.Atoi(form.LastRuns)
		if err != nil {
			return c.renderRegressions(req, http.StatusUnprocessableEntity, form,
				[]problem{{Severity: "error", Path: "last_runs", Message: "The number of runs must be a whole number."}})
		}
		// Zero or less goes to the API as is, so its 422 says what it accepts.
		body.LastRuns = n
		if n <= 0 {
			body.LastRuns = -1
		}
	}
	reg, err := cl.StartRegression(req.Ctx(), id, body)
	if err != nil {
		if probs, ok := startProblems(err); ok {
			return c.renderRegressions(req, statusOf(err), form, probs)
		}
		return err
	}
	return req.Redirect(Prefix + "agents/" + id + "/regressions/" + reg.RegressionID)
}

// startProblems reads a refused start as problems shown by the form: a
// 422's items at their fields, a 402's or a 409's sentence.
func startProblems(err error) ([]problem, bool) {
	if probs, ok := apiProblems(err, nil); ok {
		for i := range probs {
			probs[i].Path = strings.TrimPrefix(probs[i].Path, "body.")
		}
		return probs, true
	}
	var ae *client.APIError
	if errors.As(err, &ae) && (ae.StatusCode == http.StatusPaymentRequired || ae.StatusCode == http.StatusConflict) {
		msg := ae.Message
		if ae.StatusCode == http.StatusPaymentRequired {
			msg = "The account's balance does not cover this regression's estimate: " + msg
		}
		return []problem{{Severity: "error", Message: msg}}, true
	}
	return nil, false
}

// statusOf is the API's status of a refusal (422 when it does not say).
func statusOf(err error) int {
	var ae *client.APIError
	if errors.As(err, &ae) {
		return ae.StatusCode
	}
	return http.StatusUnprocessableEntity
}

// changedRun is a changed output, side by side with its original.
type changedRun struct {
	client.RegressionRun
	Similarity     string
	Source, Replay string
	ReplayID       string
}

type regressionView struct {
	AgentID   string
	AgentName string
	Reg       *client.Regression
	Live      bool // still running: the block re-reads itself
	Before    string
	After     string
	Credits   string
	Estimate  string
	Percent   string
	Changed   []changedRun
	Pending   int // recorded runs not done yet
	Cancelled int
	Unchanged int
	CSRF      string // the cancel form's token (the block is rendered alone too)
}

func loadRegression(req *Request) (*regressionView, error) {
	cl, err := req.API()
	if err != nil {
		return nil, err
	}
	id, rid := req.PathValue("id"), req.PathValue("rid")
	reg, err := cl.GetRegression(req.Ctx(), id, rid)
	if err != nil {
		return nil, err
	}
	v := &regressionView{AgentID: id, Reg: reg, Live: !reg.Ended(), CSRF: req.CSRF(),
		Before: passRate(reg.Report.PassRateBefore), After: passRate(reg.Report.PassRateAfter),
		Credits: credits(reg.Report.CreditsSpent), Estimate: credits(reg.EstimatedCredits),
		Percent: strconv.FormatFloat(reg.Progress.Percent, 'f', 0, 64)}
	for _, r := range reg.Runs {
		switch {
		case r.Status == "cancelled":
			v.Cancelled++
		case r.Status != "done":
			v.Pending++
		case r.Outcome != nil && *r.Outcome == "changed":
			cr := changedRun{RegressionRun: r, Source: deref(r.SourceOutput), Replay: deref(r.ReplayOutput), ReplayID: deref(r.ReplayRunID)}
			if r.Similarity != nil {
				cr.Similarity = fmt.Sprintf("%.3f", *r.Similarity)
			}
			v.Changed = append(v.Changed, cr)
		default:
			v.Unchanged++
		}
	}
	return v, nil
}

func (c *Console) regressionReport(req *Request) error {
	v, err := loadRegression(req)
	if err != nil {
		return err
	}
	if cl, err := req.API(); err == nil {
		if a, err := cl.GetAgent(req.Ctx(), v.AgentID); err == nil {
			v.AgentName = a.Name
		}
	}
	return req.Page(http.StatusOK, "regressions_report.html", "Regression", "agents", v)
}

// regressionLive is the report's block alone, for htmx's polling.
func (c *Console) regressionLive(req *Request) error {
	v, err := loadRegression(req)
	if err != nil {
		return err
	}
	return req.Fragment(http.StatusOK, "regressions_report.html", "regression-live", v)
}

// regressionCancel asks the API to stop it and goes back to its report; a
// regression that has ended (409) is said on the report.
func (c *Console) regressionCancel(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	id, rid := req.PathValue("id"), req.PathValue("rid")
	if _, err := cl.CancelRegression(req.Ctx(), id, rid); err != nil && !errors.Is(err, client.ErrConflict) {
		return err
	}
	return req.Redirect(Prefix + "agents/" + id + "/regressions/" + rid)
}
