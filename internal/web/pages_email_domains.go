package web

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/agentry/agentry/client"
)

// Sending domains: the list and the add form, and each domain's page with
// the DNS records to publish and a verification status that checks itself
// while the domain is pending (htmx polling of the status fragment).

func (c *Console) domainRoutes() {
	c.page("GET "+Prefix+"email/domains", c.domainsPage)
	c.page("POST "+Prefix+"email/domains", c.domainAdd)
	c.page("POST "+Prefix+"email/domains/use-shared", c.domainUseShared)
	c.page("GET "+Prefix+"email/domains/{id}", c.domainPage)
	c.page("GET "+Prefix+"email/domains/{id}/status", c.domainStatus)
	c.page("POST "+Prefix+"email/domains/{id}/verify", c.domainVerify)
	c.page("POST "+Prefix+"email/domains/{id}/primary", c.domainPrimary)
	c.page("POST "+Prefix+"email/domains/{id}/test-email", c.domainTestEmail)
	c.page("POST "+Prefix+"email/domains/{id}/remove", c.domainRemove)
}

// DomainPollSeconds is how often a pending domain's page checks its
// records again while it is open (a variable so that a browser test need
// not wait 10 seconds).
var DomainPollSeconds = 10

type domainsView struct {
	List       *client.EmailDomains
	MailDomain string
	Kind       string
	Value      string
	Problems   []problem
	Notice     string
}

func (v domainsView) flash() string { return v.Notice }

var domainNotices = map[string]string{
	"shared":  "Agents send from and receive on the shared domain again.",
	"removed": "Domain removed.",
}

func (c *Console) domainsPage(req *Request) error {
	return c.renderDomains(req, http.StatusOK, domainsView{Kind: "custom", Notice: domainNotices[req.URL.Query().Get("done")]})
}

func (c *Console) renderDomains(req *Request, status int, v domainsView) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	if v.List, err = cl.ListEmailDomains(req.Ctx()); err != nil {
		return err
	}
	v.MailDomain = c.cfg.MailDomain
	return req.Page(status, "email_domain_list.html", "Sending domains", "email", v)
}

// domainAdd adds a domain; the API's 422 (a bad name) and 409 (one of that
// kind already, or a vanity name taken) are shown beside the form.
func (c *Console) domainAdd(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	v := domainsView{Kind: req.PostFormValue("kind"), Value: strings.TrimSpace(req.PostFormValue("value"))}
	d, err := cl.AddEmailDomain(req.Ctx(), v.Kind, v.Value, req.PostFormValue("delegated") == "on")
	var ae *client.APIError
	if probs, ok := apiProblems(err, nil); ok {
		v.Problems = probs
		return c.renderDomains(req, http.StatusUnprocessableEntity, v)
	} else if errors.As(err, &ae) && ae.StatusCode == http.StatusConflict {
		v.Problems = []problem{{Severity: "error", Message: ae.Message}}
		return c.renderDomains(req, http.StatusConflict, v)
	}
	if err != nil {
		return err
	}
	return req.Redirect(Prefix + "email/domains/" + d.ID)
}

func (c *Console) domainUseShared(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	if err := cl.UseSharedEmailDomain(req.Ctx()); err != nil {
		return err
	}
	return req.Redirect(Prefix + "email/domains?done=shared")
}

type domainView struct {
	Domain client.EmailDomain
	DMARC  *client.DMARCSummary
	Poll   int
	Notice string
}

func (v domainView) flash() string { return v.Notice }

var domainPageNotices = map[string]string{
	"primary": "Agents now send from and receive on this domain.",
	"tested":  "Test e-mail sent to the account owner's address.",
}

// findDomain reads one domain from the account's list (the API has no
// single read); another account's id is a 404, as in the API.
func findDomain(req *Request, id string) (*client.EmailDomain, error) {
	cl, err := req.API()
	if err != nil {
		return nil, err
	}
	list, err := cl.ListEmailDomains(req.Ctx())
	if err != nil {
		return nil, err
	}
	for i := range list.Domains {
		if list.Domains[i].ID == id {
			return &list.Domains[i], nil
		}
	}
	return nil, &client.APIError{StatusCode: http.StatusNotFound, Message: "no such domain"}
}

func (c *Console) domainPage(req *Request) error {
	d, err := findDomain(req, req.PathValue("id"))
	if err != nil {
		return err
	}
	v := domainView{Domain: *d, Poll: DomainPollSeconds, Notice: domainPageNotices[req.URL.Query().Get("done")]}
	cl, _ := req.API()
	if v.DMARC, err = cl.EmailDomainDMARC(req.Ctx(), d.ID, 30, 10); err != nil {
		return err
	}
	return req.Page(http.StatusOK, "email_domain.html", d.Domain, "email", v)
}

// domainStatus is the status fragment, read again (no check) for htmx.
func (c *Console) domainStatus(req *Request) error {
	d, err := findDomain(req, req.PathValue("id"))
	if err != nil {
		return err
	}
	return req.Fragment(http.StatusOK, "email_domain.html", "domain-status", domainView{Domain: *d, Poll: DomainPollSeconds})
}

// domainVerify checks the records now. From htmx (the poll, or "Check
// now") it answers the status fragment; from a plain form, the page.
func (c *Console) domainVerify(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	d, err := cl.VerifyEmailDomain(req.Ctx(), req.PathValue("id"))
	if err != nil {
		return err
	}
	if req.Header.Get("HX-Request") != "" {
		return req.Fragment(http.StatusOK, "email_domain.html", "domain-status", domainView{Domain: *d, Poll: DomainPollSeconds})
	}
	return req.Redirect(Prefix + "email/domains/" + d.ID)
}

func (c *Console) domainPrimary(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	if _, err := cl.SetPrimaryEmailDomain(req.Ctx(), req.PathValue("id")); err != nil {
		return err
	}
	return req.Redirect(Prefix + "email/domains/" + req.PathValue("id") + "?done=primary")
}

func (c *Console) domainTestEmail(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	if err := cl.SendTestEmail(req.Ctx(), req.PathValue("id")); err != nil {
		return err
	}
	return req.Redirect(Prefix + "email/domains/" + req.PathValue("id") + "?done=tested")
}

// domainRemove removes the domain; a cleanup note (a delegation to undo)
// is shown on the list.
func (c *Console) domainRemove(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	note, err := cl.RemoveEmailDomain(req.Ctx(), req.PathValue("id"))
	if err != nil {
		return err
	}
	if note != "" {
		return c.renderDomains(req, http.StatusOK, domainsView{Kind: "custom", Notice: "Domain removed. " + note})
	}
	return req.Redirect(Prefix + "email/domains?done=removed")
}

// PassRate is the DMARC pass rate as a percentage ("" without messages).
func (v domainView) PassRate() string {
	if v.DMARC == nil || v.DMARC.PassRate == nil {
		return ""
	}
	return strconv.FormatFloat(*v.DMARC.PassRate*100, 'f', 1, 64) + "%"
}
