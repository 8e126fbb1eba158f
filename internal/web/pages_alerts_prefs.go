package web

import (
	"net/http"

	"github.com/agentry/agentry/client"
)

// Organization preferences: in each organization the signed-in user owns
// or administers, whether they are told of each alert type. The API lists
// only those organizations (a member manages none) and refuses the rest.

func (c *Console) alertPreferenceRoutes() {
	c.page("GET "+Prefix+"alerts/preferences", c.alertPreferencesPage)
	c.page("POST "+Prefix+"alerts/preferences", c.alertPreferenceSave)
}

// orgPreferences are one organization's preferences, in the API's order.
type orgPreferences struct {
	OrganizationID string
	Preferences    []client.AlertPreference
}

type alertPreferencesView struct {
	Organizations []orgPreferences
	Problem       string
	Notice        string
}

func (v alertPreferencesView) flash() string { return v.Notice }

func (c *Console) alertPreferencesPage(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	prefs, err := cl.ListAlertPreferences(req.Ctx(), "", true)
	if err != nil {
		return err
	}
	v := alertPreferencesView{Notice: actionNotice(req.URL.Query().Get("done")), Problem: req.URL.Query().Get("problem")}
	for _, p := range prefs {
		if n := len(v.Organizations); n == 0 || v.Organizations[n-1].OrganizationID != p.OrganizationID {
			v.Organizations = append(v.Organizations, orgPreferences{OrganizationID: p.OrganizationID})
		}
		o := &v.Organizations[len(v.Organizations)-1]
		o.Preferences = append(o.Preferences, p)
	}
	return req.Page(http.StatusOK, "alerts_preferences.html", "Alert preferences", "alerts", v)
}

func (c *Console) alertPreferenceSave(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	if err := req.ParseForm(); err != nil {
		return req.Error(http.StatusBadRequest, "The form could not be read.")
	}
	subscribed := req.PostForm.Get("subscribed") == "true"
	back := Prefix + "alerts/preferences"
	if _, err := cl.SetAlertPreference(req.Ctx(), req.PostForm.Get("organization_id"), req.PostForm.Get("alert_type"), subscribed); err != nil {
		if msg, ok := apiProblem422(err); ok {
			return req.Redirect(pathWithProblem(back, msg))
		}
		return err
	}
	return req.Redirect(pathWithDone(back, "preference"))
}
