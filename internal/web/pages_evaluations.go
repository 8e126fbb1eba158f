package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentry/agentry/client"
)

// The evaluations area: the agents (with the account's automatic
// evaluation rates), and per agent its criteria by step, its pass rate
// over time (an SVG chart drawn here, as graph.go draws the workflow),
// the failures with the judge's explanation and a link to the run, and a
// draft judged on the spot (nothing recorded, nothing charged).

func init() { registerArea((*Console).evaluationsRoutes) }

func (c *Console) evaluationsRoutes() {
	c.page("GET "+Prefix+"evaluations", c.evaluationsList)
	c.page("GET "+Prefix+"evaluations/{agent_id}", c.evaluationsAgent)
	c.page("POST "+Prefix+"evaluations/{agent_id}/draft", c.evaluationsDraft)
}

const (
	// chartDays is the pass-rate chart's window: the API adds the days
	// up, so the page costs the same however many results there are.
	chartDays = 30
	// failuresPerPage is the failures listed per page.
	failuresPerPage = 20
)

type evaluationsListView struct {
	Agents  []client.Agent
	Total   int
	Summary *client.NonManualEvaluationSummary
	PassPct string
}

func (c *Console) evaluationsList(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	agents, err := cl.ListAgents(req.Ctx(), client.AgentListOptions{Limit: 100})
	if err != nil {
		return err
	}
	sum, err := cl.GetNonManualEvaluationSummary(req.Ctx(), "", 30)
	if err != nil {
		return err
	}
	v := evaluationsListView{Agents: agents.Items, Total: agents.Total, Summary: sum, PassPct: fmt.Sprintf("%.1f%%", 100*sum.PassRate)}
	return req.Page(http.StatusOK, "evaluations_list.html", "Evaluations", "evaluations", v)
}

// stepCriteria are the criteria of one step.
type stepCriteria struct {
	StepID   string
	Criteria []criterionRow
}

type criterionRow struct {
	client.EvaluationCriteria
	Expect string // the expectation config, compact
}

// failureRow is a failed result with what the judge said.
type failureRow struct {
	client.EvaluationResult
	Explanation string
	Checks      []resultCheck
	Score       string
}

type resultCheck struct {
	Check  string `json:"check"`
	Passed bool   `json:"passed"`
	Detail string `json:"detail"`
}

type evaluationsAgentView struct {
	Agent        *client.Agent
	Steps        []stepCriteria
	CriteriaN    int
	Chart        template.HTML
	ChartN       int // judged results the chart draws
	ChartDays    int // its window
	Failures     []failureRow
	FailureTotal int
	FailurePager pager
	Draft        draftForm
	Verdict      *client.DraftVerdict
	Problems     []problem
}

type draftForm struct {
	Output, Prompt, Expect, Threshold string
}

func (c *Console) loadEvaluationsAgent(req *Request, v *evaluationsAgentView) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	id := req.PathValue("agent_id")
	if v.Agent, err = cl.GetAgent(req.Ctx(), id); err != nil {
		return err
	}
	crit, err := cl.ListEvaluationCriteria(req.Ctx(), id, 1, 100) // an agent has at most 100
	if err != nil {
		return err
	}
	v.CriteriaN = len(crit.Items)
	byStep := map[string]int{}
	for _, cr := range crit.Items {
		step := deref(cr.StepID)
		i, ok := byStep[step]
		if !ok {
			i = len(v.Steps)
			byStep[step] = i
			v.Steps = append(v.Steps, stepCriteria{StepID: step})
		}
		v.Steps[i].Criteria = append(v.Steps[i].Criteria, criterionRow{EvaluationCriteria: cr, Expect: compactJSON(cr.ExpectationConfig)})
	}
	slices.SortFunc(v.Steps, func(a, b stepCriteria) int { return strings.Compare(a.StepID, b.StepID) })

	// The chart: the last chartDays days, added up by the API.
	daily, err := cl.GetEvaluationDaily(req.Ctx(), id, chartDays)
	if err != nil {
		return err
	}
	for _, d := range daily.Days {
		v.ChartN += d.Total - d.Skipped - d.Pending
	}
	v.Chart, v.ChartDays = passRateChart(daily.Days), chartDays

	page := pageParam(req, "page")
	fails, err := cl.ListAgentEvaluationResults(req.Ctx(), id, client.EvaluationResultFilter{Status: "failed", Page: page, Limit: failuresPerPage})
	if err != nil {
		return err
	}
	v.FailureTotal = fails.Total
	v.FailurePager = pagerLinks(Prefix+"evaluations/"+id, "page", page, fails.Total > page*failuresPerPage)
	for _, r := range fails.Items {
		row := failureRow{EvaluationResult: r}
		var d struct {
			Explanation string        `json:"explanation"`
			Checks      []resultCheck `json:"checks"`
		}
		if json.Unmarshal(r.Details, &d) == nil {
			row.Explanation, row.Checks = d.Explanation, d.Checks
		}
		if r.Score != nil {
			row.Score = strconv.FormatFloat(*r.Score, 'f', 2, 64)
		}
		v.Failures = append(v.Failures, row)
	}
	return nil
}

func compactJSON(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" || string(raw) == "{}" {
		return ""
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

func (c *Console) evaluationsAgent(req *Request) error {
	var v evaluationsAgentView
	v.Draft.Threshold = "0.7"
	if err := c.loadEvaluationsAgent(req, &v); err != nil {
		return err
	}
	return req.Page(http.StatusOK, "evaluations_agent.html", "Evaluations: "+v.Agent.Name, "evaluations", v)
}

// evaluationsDraft judges a draft criterion against an output the user
// pastes: the API records nothing and charges nothing.
func (c *Console) evaluationsDraft(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	var v evaluationsAgentView
	v.Draft = draftForm{Output: req.PostFormValue("step_output"), Prompt: strings.TrimSpace(req.PostFormValue("evaluation_prompt")),
		Expect: strings.TrimSpace(req.PostFormValue("expectation_config")), Threshold: strings.TrimSpace(req.PostFormValue("pass_threshold"))}
	d := client.DraftEvaluation{StepOutput: &v.Draft.Output}
	if v.Draft.Prompt != "" {
		d.EvaluationPrompt = &v.Draft.Prompt
	}
	if v.Draft.Expect != "" {
		if !json.Valid([]byte(v.Draft.Expect)) {
			v.Problems = append(v.Problems, problem{Severity: "error", Path: "expectation_config", Message: "The expectations are not valid JSON."})
		}
		d.ExpectationConfig = json.RawMessage(v.Draft.Expect)
	}
	if v.Draft.Threshold != "" {
		t, err := strconv.ParseFloat(v.Draft.Threshold, 64)
		if err != nil {
			v.Problems = append(v.Problems, problem{Severity: "error", Path: "pass_threshold", Message: "The pass threshold must be a number from 0 to 1."})
		}
		d.PassThreshold = &t
	}
	status := http.StatusOK
	if len(v.Problems) == 0 {
		v.Verdict, err = cl.TestDraftEvaluation(req.Ctx(), req.PathValue("agent_id"), d)
		var ae *client.APIError
		if probs, ok := apiProblems(err, nil); ok {
			v.Problems = probs
		} else if errors.As(err, &ae) && ae.StatusCode == http.StatusBadRequest {
			v.Problems = []problem{{Severity: "error", Message: ae.Message}}
		} else if err != nil {
			return err
		}
	}
	if len(v.Problems) > 0 {
		status = http.StatusUnprocessableEntity
	}
	if err := c.loadEvaluationsAgent(req, &v); err != nil {
		return err
	}
	return req.Page(status, "evaluations_agent.html", "Evaluations: "+v.Agent.Name, "evaluations", v)
}

// passRateChart draws the results' pass rate per day (a line over bars of
// the day's count) in SVG: only numbers and fixed words go into it, and
// its look comes from the stylesheet, as the CSP requires.
func passRateChart(daily []client.EvaluationDay) template.HTML {
	type day struct{ total, passed int }
	days := map[string]*day{}
	var keys []string
	for _, r := range daily {
		t, err := time.Parse(time.DateOnly, r.Date)
		if err != nil {
			continue
		}
		k := t.Format(time.DateOnly) // only a date goes into the SVG
		if _, ok := days[k]; !ok {
			keys = append(keys, k)
		}
		// Judged results only: skipped and pending ones have no verdict.
		days[k] = &day{total: r.Total - r.Skipped - r.Pending, passed: r.Passed}
	}
	if len(keys) == 0 {
		return ""
	}
	slices.Sort(keys)
	const w, h, top, bottom, left = 720.0, 200.0, 12.0, 24.0, 40.0
	plotH := h - top - bottom
	peak := 1
	for _, k := range keys {
		peak = max(peak, days[k].total)
	}
	slot := (w - left) / float64(len(keys))
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" viewBox="0 0 %.0f %.0f" role="img" aria-label="Pass rate per day over %d days">`, w, h, len(keys))
	for _, pct := range []int{0, 50, 100} {
		y := top + plotH*(1-float64(pct)/100)
		fmt.Fprintf(&b, `<line class="%s" x1="%.0f" y1="%.1f" x2="%.0f" y2="%.1f"/>`, map[bool]string{true: "axis", false: "grid"}[pct == 0], left, y, w, y)
		fmt.Fprintf(&b, `<text class="tick" x="%.0f" y="%.1f" text-anchor="end">%d%%</text>`, left-4, y+4, pct)
	}
	var line strings.Builder
	for i, k := range keys {
		d := days[k]
		x := left + float64(i)*slot + slot/2
		vh := float64(d.total) / float64(peak) * plotH * 0.35
		fmt.Fprintf(&b, `<rect class="vol" x="%.1f" y="%.1f" width="%.1f" height="%.1f"><title>%s: %d results</title></rect>`,
			x-slot*0.35, h-bottom-vh, slot*0.7, vh, k, d.total)
		if d.total > 0 {
			rate := float64(d.passed) / float64(d.total)
			y := top + plotH*(1-rate)
			if line.Len() == 0 {
				fmt.Fprintf(&line, "M%.1f %.1f", x, y)
			} else {
				fmt.Fprintf(&line, " L%.1f %.1f", x, y)
			}
			class := "dot"
			if rate < 0.5 {
				class = "dot low"
			}
			fmt.Fprintf(&b, `<circle class="%s" cx="%.1f" cy="%.1f" r="3.5"><title>%s: %d of %d passed (%.0f%%)</title></circle>`,
				class, x, y, k, d.passed, d.total, 100*rate)
		}
		if step := max(1, len(keys)/8); i%step == 0 || i == len(keys)-1 {
			fmt.Fprintf(&b, `<text class="tick" x="%.1f" y="%.1f" text-anchor="middle">%s</text>`, x, h-6, k[5:])
		}
	}
	if line.Len() > 0 {
		fmt.Fprintf(&b, `<path class="rate" d="%s"/>`, line.String())
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) // built from numbers, dates and fixed text only
}

// deref reads an optional string.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
