package web

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/agentry/agentry/client"
)

// A knowledge base's page: its sources, and hit testing beside its search
// settings. The query runs with the settings as the form has them, saved
// or not (the search operation takes mode, vector_weight,
// candidate_depth, feedback, top_n, top_k and score_threshold per query),
// so a user sees what a change does before saving it. Each result shows
// its scores (full text, vector, fused rank), the matched words
// highlighted and the content it came from.

func (c *Console) baseRoutes() {
	c.page("GET "+kPrefix+"/bases/{id}", c.basePage)
	c.page("POST "+kPrefix+"/bases/{id}/test", c.baseTest)
	c.page("POST "+kPrefix+"/bases/{id}/settings", c.baseSaveSettings)
	c.page("POST "+kPrefix+"/bases/{id}/delete", c.baseDelete)
}

var searchModes = []string{"hybrid", "full_text", "vector"}

// searchForm is the settings and query as the form has them (text, to
// refill it exactly as typed).
type searchForm struct {
	Query, Mode, VectorWeight, CandidateDepth string
	Feedback                                  bool
	TopN, TopK, ScoreThreshold                string
}

// hit is a result with its text cut for highlighting.
type hit struct {
	client.KnowledgeSearchResult
	Rank     int
	Segments []segment
}

type hitsView struct {
	Ran           bool
	Query         string
	Hits          []hit
	Used          *client.KnowledgeSearchRun
	Unsaved       []string // the settings the test used that differ from the saved ones
	Problems      []problem
	ContentPrefix string
}

type baseView struct {
	Base          *client.KnowledgeBase
	Settings      *client.SearchSettings
	Form          searchForm
	Modes         []string
	Hits          hitsView
	Problems      []problem // of saving
	NoticeMessage string
}

func (v baseView) flash() string { return v.NoticeMessage }

func (c *Console) basePage(req *Request) error {
	return c.renderBase(req, http.StatusOK, baseView{NoticeMessage: notice(req)}, false)
}

// renderBase reads the knowledge base and its settings; the form is the
// saved settings unless filled already.
func (c *Console) renderBase(req *Request, status int, v baseView, filled bool) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	id := req.PathValue("id")
	if v.Base, err = cl.GetKnowledgeBase(req.Ctx(), id); err != nil {
		return err
	}
	if v.Settings, err = cl.KnowledgeBaseSearchSettings(req.Ctx(), id); err != nil {
		return err
	}
	if !filled {
		v.Form = savedForm(v.Base, v.Settings)
	}
	v.Modes = searchModes
	v.Hits.ContentPrefix = kPrefix + "/contents/"
	return req.Page(status, "knowledge_base.html", v.Base.Name, "knowledge", v)
}

// savedForm is the form filled with the saved settings.
func savedForm(kb *client.KnowledgeBase, s *client.SearchSettings) searchForm {
	f := searchForm{Mode: s.Mode, VectorWeight: strconv.FormatFloat(s.VectorWeight, 'f', -1, 64),
		CandidateDepth: strconv.Itoa(s.CandidateDepth), Feedback: s.Feedback}
	if kb.DefaultTopN != nil {
		f.TopN = strconv.Itoa(*kb.DefaultTopN)
	}
	if kb.DefaultTopK != nil {
		f.TopK = strconv.Itoa(*kb.DefaultTopK)
	}
	if kb.DefaultScoreThreshold != nil {
		f.ScoreThreshold = strconv.FormatFloat(*kb.DefaultScoreThreshold, 'f', -1, 64)
	}
	return f
}

func readSearchForm(req *Request) searchForm {
	return searchForm{Query: strings.TrimSpace(req.PostFormValue("q")), Mode: req.PostFormValue("mode"),
		VectorWeight: strings.TrimSpace(req.PostFormValue("vector_weight")), CandidateDepth: strings.TrimSpace(req.PostFormValue("candidate_depth")),
		Feedback: req.PostFormValue("feedback") == "on", TopN: strings.TrimSpace(req.PostFormValue("top_n")),
		TopK: strings.TrimSpace(req.PostFormValue("top_k")), ScoreThreshold: strings.TrimSpace(req.PostFormValue("score_threshold"))}
}

// parsed holds the form's numbers; a value that is not a number is a
// problem at its field (the API checks the ranges).
type parsed struct {
	VectorWeight, ScoreThreshold *float64
	CandidateDepth, TopN, TopK   *int
}

func (f searchForm) parse() (parsed, []problem) {
	var p parsed
	var ps []problem
	num := func(field, s string, dst **float64) {
		if s == "" {
			return
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			ps = append(ps, problem{Severity: "error", Path: field, Message: "must be a number"})
			return
		}
		*dst = &v
	}
	whole := func(field, s string, dst **int) {
		if s == "" {
			return
		}
		v, err := strconv.Atoi(s)
		if err != nil {
			ps = append(ps, problem{Severity: "error", Path: field, Message: "must be a whole number"})
			return
		}
		*dst = &v
	}
	num("vector_weight", f.VectorWeight, &p.VectorWeight)
	num("score_threshold", f.ScoreThreshold, &p.ScoreThreshold)
	whole("candidate_depth", f.CandidateDepth, &p.CandidateDepth)
	whole("top_n", f.TopN, &p.TopN)
	whole("top_k", f.TopK, &p.TopK)
	return p, ps
}

// baseTest runs the query with the form's settings: the hits alone for
// htmx, the whole page otherwise.
func (c *Console) baseTest(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	id := req.PathValue("id")
	f := readSearchForm(req)
	hv := hitsView{Ran: true, Query: f.Query, ContentPrefix: kPrefix + "/contents/"}
	p, ps := f.parse()
	switch {
	case f.Query == "":
		hv.Problems = []problem{{Severity: "error", Path: "query", Message: "Type a query to test."}}
	case len(ps) > 0:
		hv.Problems = ps
	default:
		feedback := f.Feedback
		res, err := cl.SearchKnowledgeBase(req.Ctx(), id, client.KnowledgeSearchRequest{Query: f.Query, Mode: f.Mode,
			VectorWeight: p.VectorWeight, CandidateDepth: p.CandidateDepth, Feedback: &feedback, TopN: p.TopN, TopK: p.TopK,
			ScoreThreshold: p.ScoreThreshold, Explain: true})
		if err != nil {
			if hv.Problems, _ = formProblems(err); hv.Problems == nil {
				return err
			}
			break
		}
		hv.Used = res.Explain
		var q, fb map[string]bool
		if res.Explain != nil {
			q, fb = termSet(res.Explain.QueryTerms), termSet(res.Explain.FeedbackTerms)
		}
		for i, r := range res.Results {
			hv.Hits = append(hv.Hits, hit{KnowledgeSearchResult: r, Rank: i + 1, Segments: highlight(r.Text, q, fb)})
		}
	}
	saved, err := cl.KnowledgeBaseSearchSettings(req.Ctx(), id)
	if err != nil {
		return err
	}
	kb, err := cl.GetKnowledgeBase(req.Ctx(), id)
	if err != nil {
		return err
	}
	hv.Unsaved = unsaved(f, savedForm(kb, saved))
	status := http.StatusOK
	if hv.Problems != nil {
		status = http.StatusUnprocessableEntity
	}
	if req.Header.Get("HX-Request") != "" {
		return req.Fragment(status, "knowledge_base.html", "hits", hv)
	}
	return c.renderBase(req, status, baseView{Form: f, Hits: hv}, true)
}

// unsaved names the settings of the form that differ from the saved ones.
func unsaved(f, saved searchForm) []string {
	var out []string
	same := func(a, b string) bool {
		x, err1 := strconv.ParseFloat(a, 64)
		y, err2 := strconv.ParseFloat(b, 64)
		if err1 == nil && err2 == nil {
			return x == y
		}
		return a == b
	}
	for _, d := range []struct{ name, a, b string }{{"mode", f.Mode, saved.Mode}, {"vector_weight", f.VectorWeight, saved.VectorWeight},
		{"candidate_depth", f.CandidateDepth, saved.CandidateDepth}, {"top_n", f.TopN, saved.TopN}, {"top_k", f.TopK, saved.TopK},
		{"score_threshold", f.ScoreThreshold, saved.ScoreThreshold}} {
		if !same(d.a, d.b) {
			out = append(out, d.name)
		}
	}
	if f.Feedback != saved.Feedback {
		out = append(out, "feedback")
	}
	return out
}

// baseSaveSettings saves the form's search settings, and its top_n,
// top_k and score threshold (the knowledge base's own defaults).
func (c *Console) baseSaveSettings(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	id := req.PathValue("id")
	f := readSearchForm(req)
	p, ps := f.parse()
	if len(ps) > 0 {
		return c.renderBase(req, http.StatusUnprocessableEntity, baseView{Form: f, Problems: ps}, true)
	}
	upd := client.SearchSettingsUpdate{VectorWeight: p.VectorWeight, CandidateDepth: p.CandidateDepth, Feedback: &f.Feedback}
	if f.Mode != "" {
		upd.Mode = &f.Mode
	}
	if _, err := cl.UpdateKnowledgeBaseSearchSettings(req.Ctx(), id, upd); err != nil {
		if ps, ok := formProblems(err); ok {
			return c.renderBase(req, http.StatusUnprocessableEntity, baseView{Form: f, Problems: ps}, true)
		}
		return err
	}
	if p.TopN != nil || p.TopK != nil || p.ScoreThreshold != nil {
		if _, err := cl.UpdateKnowledgeBase(req.Ctx(), id, client.KnowledgeBaseRequest{DefaultTopN: p.TopN, DefaultTopK: p.TopK,
			DefaultScoreThreshold: p.ScoreThreshold}); err != nil {
			if ps, ok := formProblems(err); ok {
				return c.renderBase(req, http.StatusUnprocessableEntity, baseView{Form: f, Problems: ps}, true)
			}
			return err
		}
	}
	return req.Redirect(kPrefix + "/bases/" + id + "?done=settings")
}

func (c *Console) baseDelete(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	if err := cl.DeleteKnowledgeBase(req.Ctx(), req.PathValue("id")); err != nil {
		if ps, ok := formProblems(err); ok {
			return c.renderBase(req, http.StatusConflict, baseView{Problems: ps}, false)
		}
		return err
	}
	return req.Redirect(kPrefix)
}
