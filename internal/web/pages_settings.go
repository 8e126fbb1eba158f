package web

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/agentry/agentry/client"
)

// The settings area: API keys (a new key shown once; revoke), members and
// roles, account secrets (write-only), credits with a usage chart, the API
// version pin and which agents are MCP tools. The account switcher and
// sign-out everywhere stay on /console/account, linked from here.

func init() { registerArea((*Console).settingsRoutes) }

func (c *Console) settingsRoutes() {
	c.page("GET "+Prefix+"settings", c.settingsPage)
	c.page("POST "+Prefix+"settings/api-keys", c.settingsCreateKey)
	c.page("POST "+Prefix+"settings/api-keys/{id}/revoke", c.settingsRevokeKey)
	c.page("POST "+Prefix+"settings/members/{user}/role", c.settingsSetRole)
	c.page("POST "+Prefix+"settings/secrets", c.settingsSetSecret)
	c.page("POST "+Prefix+"settings/secrets/{name}/delete", c.settingsDeleteSecret)
	c.page("POST "+Prefix+"settings/version", c.settingsSetVersion)
	c.page("POST "+Prefix+"settings/mcp-tools", c.settingsSetMCPTool)
}

// settingsLedgerRows is how many ledger entries the page shows.
const settingsLedgerRows = 20

type settingsView struct {
	Keys      []client.APIKey
	KeysTotal int
	Members   []client.Member
	MyRole    string // the signed-in user's role in the account, "" when unknown
	Admin     bool   // owner or admin: the page shows the controls (the API decides anyway)
	Owner     bool
	Secrets   []client.Secret
	Credits   *client.Credits
	Chart     usageChart
	Version   *client.APIVersionResponse
	Tools     []client.AgentMCPTool
	ToolNames map[string]string
	Agents    []client.Agent // the first page, to expose one as a tool
	Roles     []string
	// NewKey is the secret of a key just created: on this response only.
	NewKey   *client.CreatedAPIKey
	Problems []problem
	Notice   string
	Self     string // the signed-in user
}

func (v settingsView) flash() string { return v.Notice }

// ToolName is an exposed agent's name.
func (v settingsView) ToolName(id string) string { return v.ToolNames[id] }

// Credit formats credits with thousands separators.
func (settingsView) Credit(f float64) string { return formatCredits(f) }

var settingsNotices = map[string]string{
	"revoked":   "Key revoked: every server refuses it within seconds.",
	"role":      "Role changed.",
	"secret":    "Secret saved. Its value is write-only: it is never shown.",
	"unsecret":  "Secret deleted.",
	"pinned":    "API version pinned.",
	"unpinned":  "API version pin cleared.",
	"exposed":   "The agent is an MCP tool.",
	"unexposed": "The agent is no longer an MCP tool.",
}

func (c *Console) settingsPage(req *Request) error {
	return c.renderSettings(req, http.StatusOK, settingsView{Notice: settingsNotices[req.URL.Query().Get("done")]})
}

func (c *Console) renderSettings(req *Request, status int, v settingsView) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	ctx := req.Ctx()
	v.Roles = []string{"member", "admin", "owner"}
	v.Self = req.Session.UserID
	keys, err := cl.ListAPIKeys(ctx, 1, 200)
	if err != nil {
		return err
	}
	v.Keys, v.KeysTotal = keys.Items, keys.Total
	members, err := cl.ListMembers(ctx, 1, 200)
	if err != nil {
		return err
	}
	v.Members = members.Items
	for _, m := range v.Members {
		if m.UserID == req.Session.UserID {
			v.MyRole = m.Role
		}
	}
	v.Admin = v.MyRole == "owner" || v.MyRole == "admin"
	v.Owner = v.MyRole == "owner"
	secrets, err := cl.ListSecrets(ctx, client.SecretListOptions{Limit: 200})
	if err != nil {
		return err
	}
	v.Secrets = secrets.Items
	if v.Credits, err = cl.GetCredits(ctx, settingsLedgerRows, usageDays); err != nil {
		return err
	}
	v.Chart = drawUsage(v.Credits)
	if v.Version, err = cl.GetVersion(ctx); err != nil {
		return err
	}
	if v.Tools, _, err = cl.ListAgentMCPTools(ctx, 1, 100); err != nil {
		return err
	}
	agents, err := cl.ListAgents(ctx, client.AgentListOptions{Limit: 100})
	if err != nil {
		return err
	}
	v.Agents, v.ToolNames = agents.Items, map[string]string{}
	for _, a := range v.Agents {
		v.ToolNames[a.ID] = a.Name
	}
	return req.Page(status, "settings.html", "Settings", "settings", v)
}

// settingsCreateKey issues a key and shows its secret on this response
// only: it is neither stored by the console, nor put in a cookie or a URL.
func (c *Console) settingsCreateKey(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	k, err := cl.CreateAPIKey(req.Ctx(), strings.TrimSpace(req.PostFormValue("name")), req.PostFormValue("role"))
	if probs, ok := apiProblems(err, nil); ok {
		return c.renderSettings(req, http.StatusUnprocessableEntity, settingsView{Problems: probs})
	}
	if err != nil {
		return err
	}
	return c.renderSettings(req, http.StatusCreated, settingsView{NewKey: k, Notice: "Key created. Copy it now: it is shown this once."})
}

func (c *Console) settingsRevokeKey(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	if _, err := cl.RevokeAPIKey(req.Ctx(), req.PathValue("id")); err != nil {
		return err
	}
	return req.Redirect(Prefix + "settings?done=revoked#api-keys")
}

func (c *Console) settingsSetRole(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	if _, err := cl.SetMemberRole(req.Ctx(), req.PathValue("user"), req.PostFormValue("role")); err != nil {
		return err
	}
	return req.Redirect(Prefix + "settings?done=role#members")
}

// settingsSetSecret stores a value (write-only) under a name, bound to
// hosts; the value goes to the API and is never rendered back.
func (c *Console) settingsSetSecret(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	hosts := strings.FieldsFunc(req.PostFormValue("hosts"), func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\r' })
	name := strings.TrimSpace(req.PostFormValue("name"))
	value := req.PostFormValue("value")
	if name == "" {
		return c.renderSettings(req, http.StatusUnprocessableEntity, settingsView{Problems: []problem{{Severity: "error", Path: "name", Message: "Give the secret a name."}}})
	}
	if value == "" {
		_, err = cl.BindSecret(req.Ctx(), name, hosts)
	} else {
		_, err = cl.SetSecret(req.Ctx(), name, value, hosts)
	}
	if probs, ok := apiProblems(err, nil); ok {
		return c.renderSettings(req, http.StatusUnprocessableEntity, settingsView{Problems: probs})
	}
	if err != nil {
		return err
	}
	return req.Redirect(Prefix + "settings?done=secret#secrets")
}

func (c *Console) settingsDeleteSecret(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	if err := cl.DeleteSecret(req.Ctx(), req.PathValue("name")); err != nil {
		return err
	}
	return req.Redirect(Prefix + "settings?done=unsecret#secrets")
}

func (c *Console) settingsSetVersion(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	done := "pinned"
	if v := strings.TrimSpace(req.PostFormValue("version")); v == "" {
		done = "unpinned"
		_, err = cl.ClearVersion(req.Ctx())
	} else {
		_, err = cl.SetVersion(req.Ctx(), v)
	}
	if probs, ok := apiProblems(err, nil); ok {
		return c.renderSettings(req, http.StatusUnprocessableEntity, settingsView{Problems: probs})
	}
	if err != nil {
		return err
	}
	return req.Redirect(Prefix + "settings?done=" + done + "#version")
}

func (c *Console) settingsSetMCPTool(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	enabled := req.PostFormValue("enabled") == "on"
	in := client.AgentMCPToolRequest{Enabled: enabled}
	if n := strings.TrimSpace(req.PostFormValue("tool_name")); n != "" && enabled {
		in.ToolName = &n
	}
	_, err = cl.SetAgentMCPTool(req.Ctx(), req.PostFormValue("agent_id"), in)
	var ae *client.APIError
	if probs, ok := apiProblems(err, nil); ok {
		return c.renderSettings(req, http.StatusUnprocessableEntity, settingsView{Problems: probs})
	} else if errors.As(err, &ae) && ae.StatusCode == http.StatusConflict {
		return c.renderSettings(req, http.StatusConflict, settingsView{Problems: []problem{{Severity: "error", Path: "tool_name", Message: ae.Message}}})
	}
	if err != nil {
		return err
	}
	if enabled {
		return req.Redirect(Prefix + "settings?done=exposed#mcp-tools")
	}
	return req.Redirect(Prefix + "settings?done=unexposed#mcp-tools")
}

// formatCredits writes credits as 1,234,567 (two decimals below 1,000).
func formatCredits(f float64) string {
	neg := f < 0
	if neg {
		f = -f
	}
	var s string
	if f < 1000 && f != float64(int64(f)) {
		s = strconv.FormatFloat(f, 'f', 2, 64)
	} else {
		digits := strconv.FormatInt(int64(f+0.5), 10)
		var b strings.Builder
		for i, r := range digits {
			if i > 0 && (len(digits)-i)%3 == 0 {
				b.WriteByte(',')
			}
			b.WriteRune(r)
		}
		s = b.String()
	}
	if neg {
		return "-" + s
	}
	return s
}
