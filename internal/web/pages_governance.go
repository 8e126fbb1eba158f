package web

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/agentry/agentry/client"
)

// The governance area: the account's policies (enable, disable, delete),
// the runs they flagged or blocked — the policy, the rule, where it
// matched and why, never the matched text (the API never stored it) —
// and the policy assistant, whose plans are accepted or declined here.
// Writes need the owner or admin role: the API answers 403 otherwise, and
// the page shows that answer.

func init() { registerArea((*Console).governanceRoutes) }

func (c *Console) governanceRoutes() {
	c.page("GET "+Prefix+"governance", c.governancePage)
	c.page("POST "+Prefix+"governance/policies/{id}/{action}", c.governancePolicyAction)
	c.page("POST "+Prefix+"governance/assistant", c.governanceAsk)
	c.page("POST "+Prefix+"governance/assistant/{id}/{decision}", c.governanceDecide)
}

// governancePageSize is the rows of each list per page.
const governancePageSize = 25

type policyRow struct {
	client.GovernancePolicy
	Action string // flag or block, from the config
	Rules  []string
	Stages []string
}

type governanceView struct {
	Policies        []policyRow
	PolicyTotal     int
	PolicyPage      int
	PolicyNext      bool
	Violations      []client.GovernanceViolation
	ViolationTotal  int
	ViolationPage   int
	ViolationNext   bool
	ViolationAction string // the filter: "", flag or block
	Plan            *client.GovernancePlan
	Applied         *client.GovernanceAcceptResult
	Conversations   []client.GovernanceConversation
	Notice, Problem string
}

func (v governanceView) flash() string { return v.Notice }

// pageParam reads a 1-based page number from the query string.
func pageParam(req *Request, name string) int {
	n, err := strconv.Atoi(req.URL.Query().Get(name))
	if err != nil || n < 1 {
		return 1
	}
	return min(n, 100000)
}

// describePolicy reads a policy's action, rules and stages from its config
// for the list; an imported config of another shape shows as it is named.
func describePolicy(p client.GovernancePolicy) policyRow {
	row := policyRow{GovernancePolicy: p, Action: "flag"}
	var cfg struct {
		Action string   `json:"action"`
		Stages []string `json:"stages"`
		Rules  []struct {
			Type  string   `json:"type"`
			Kinds []string `json:"kinds"`
		} `json:"rules"`
	}
	if len(p.Config) > 0 && json.Unmarshal(p.Config, &cfg) == nil {
		if cfg.Action != "" {
			row.Action = cfg.Action
		}
		row.Stages = cfg.Stages
		for _, r := range cfg.Rules {
			s := r.Type
			if len(r.Kinds) > 0 {
				s += " (" + strings.Join(r.Kinds, ", ") + ")"
			}
			row.Rules = append(row.Rules, s)
		}
	}
	if len(row.Rules) == 0 && p.PolicyType != nil {
		row.Rules = []string{*p.PolicyType}
	}
	if len(row.Stages) == 0 {
		row.Stages = []string{"input", "output"}
	}
	return row
}

func (c *Console) loadGovernance(req *Request, v *governanceView) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	v.PolicyPage, v.ViolationPage = pageParam(req, "page"), pageParam(req, "vpage")
	if a := req.URL.Query().Get("action"); a == "flag" || a == "block" {
		v.ViolationAction = a
	}
	ps, err := cl.ListGovernancePolicies(req.Ctx(), "", v.PolicyPage, governancePageSize)
	if err != nil {
		return err
	}
	for _, p := range ps.Items {
		v.Policies = append(v.Policies, describePolicy(p))
	}
	v.PolicyTotal, v.PolicyNext = ps.Total, ps.Total > v.PolicyPage*governancePageSize
	vs, err := cl.ListGovernanceViolations(req.Ctx(), client.GovernanceViolationListOptions{Action: v.ViolationAction,
		Page: v.ViolationPage, Limit: governancePageSize})
	if err != nil {
		return err
	}
	v.Violations, v.ViolationTotal, v.ViolationNext = vs.Items, vs.Total, vs.Total > v.ViolationPage*governancePageSize
	// The assistant's conversations need the owner or admin role: a
	// member sees the page without them.
	conv, err := cl.ListGovernanceConversations(req.Ctx(), 5)
	if err != nil && !errors.Is(err, client.ErrForbidden) {
		return err
	}
	v.Conversations = conv
	return nil
}

func (c *Console) governancePage(req *Request) error {
	v := governanceView{Problem: req.URL.Query().Get("problem")}
	switch req.URL.Query().Get("done") {
	case "enable":
		v.Notice = "Policy enabled: runs are checked against it."
	case "disable":
		v.Notice = "Policy disabled: runs are no longer checked against it."
	case "delete":
		v.Notice = "Policy deleted."
	case "declined":
		v.Notice = "Plan declined: nothing changed."
	}
	if err := c.loadGovernance(req, &v); err != nil {
		return err
	}
	return req.Page(http.StatusOK, "governance_list.html", "Governance", "governance", v)
}

// governanceProblem shows a refused write (403 for a member, 4xx) on the
// page instead of an error page; a 404 stays a 404.
func (c *Console) governanceProblem(req *Request, err error) error {
	var ae *client.APIError
	if !errors.As(err, &ae) || ae.StatusCode == http.StatusNotFound || ae.StatusCode >= 500 {
		return err
	}
	v := governanceView{Problem: ae.Message}
	if ae.StatusCode == http.StatusForbidden {
		v.Problem = "Only the account's owners and admins may change governance: " + ae.Message
	}
	if lerr := c.loadGovernance(req, &v); lerr != nil {
		return lerr
	}
	return req.Page(ae.StatusCode, "governance_list.html", "Governance", "governance", v)
}

func (c *Console) governancePolicyAction(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	id, action := req.PathValue("id"), req.PathValue("action")
	switch action {
	case "enable", "disable":
		on := action == "enable"
		_, err = cl.UpdateGovernancePolicy(req.Ctx(), id, client.GovernancePolicyInput{Enabled: &on})
	case "delete":
		err = cl.DeleteGovernancePolicy(req.Ctx(), id)
	default:
		return req.Error(http.StatusNotFound, "There is no such page.")
	}
	if err != nil {
		return c.governanceProblem(req, err)
	}
	return req.Redirect(Prefix + "governance?done=" + action)
}

func (c *Console) governanceAsk(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	ask := strings.TrimSpace(req.PostFormValue("user_input"))
	if ask == "" {
		return req.Error(http.StatusBadRequest, "Say what the policies should do.")
	}
	plan, err := cl.GovernanceAssistant(req.Ctx(), ask)
	if err != nil {
		return c.governanceProblem(req, err)
	}
	v := governanceView{Plan: plan}
	if err := c.loadGovernance(req, &v); err != nil {
		return err
	}
	return req.Page(http.StatusOK, "governance_list.html", "Governance", "governance", v)
}

func (c *Console) governanceDecide(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	id := req.PathValue("id")
	switch req.PathValue("decision") {
	case "accept":
		res, err := cl.AcceptGovernancePlan(req.Ctx(), id)
		if err != nil {
			return c.governanceProblem(req, err)
		}
		v := governanceView{Applied: res, Notice: "Plan applied."}
		if err := c.loadGovernance(req, &v); err != nil {
			return err
		}
		return req.Page(http.StatusOK, "governance_list.html", "Governance", "governance", v)
	case "decline":
		if err := cl.DeclineGovernancePlan(req.Ctx(), id); err != nil {
			return c.governanceProblem(req, err)
		}
		return req.Redirect(Prefix + "governance?done=declined")
	}
	return req.Error(http.StatusNotFound, "There is no such page.")
}
