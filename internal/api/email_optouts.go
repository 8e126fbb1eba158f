package api

import (
	"context"
	"html"
	"net/http"

	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/paging"
)

// Agent-email opt-outs (/agents/agent-email-optouts) and the one-click
// unsubscribe endpoint every agent mail links to (an extension: it needs
// no credentials, the signed token in the link is the authority).

// AgentEmailOptOutResponse is one opt-out.
type AgentEmailOptOutResponse struct {
	ID             string  `json:"id" format:"uuid"`
	CreatedAt      string  `json:"created_at"`
	RecipientEmail string  `json:"recipient_email"`
	AgentID        *string `json:"agent_id" doc:"The agent opted out of; null for all the account's agents."`
	AgentName      *string `json:"agent_name"`
	Reason         *string `json:"reason"`
	Comment        *string `json:"comment"`
}

// AgentEmailOptOutListResponse is a page of opt-outs and the total.
type AgentEmailOptOutListResponse struct {
	Items []AgentEmailOptOutResponse `json:"items"`
	Total int                        `json:"total"`
}

type listOptOutsInput struct {
	AgentID string `query:"agent_id" maxLength:"100" doc:"Filter to one agent (account-wide opt-outs still apply)"`
	Limit   int    `query:"limit" default:"50" minimum:"1" maximum:"200"`
	Offset  int    `query:"offset" default:"0" minimum:"0" maximum:"100000000"`
}

type optOutsAnyOutput struct{ Body any }

func (s *Server) listAgentEmailOptOuts(ctx context.Context, in *listOptOutsInput) (*optOutsAnyOutput, error) {
	os, total, err := s.deps.Mail.OptOuts(ctx, principal(ctx).AccountID, in.AgentID, in.Limit, in.Offset)
	if err != nil {
		return nil, err
	}
	items := make([]AgentEmailOptOutResponse, 0, len(os))
	for _, o := range os {
		items = append(items, AgentEmailOptOutResponse{ID: o.ID, CreatedAt: modelsTimestamp(o.CreatedAt), RecipientEmail: o.RecipientEmail,
			AgentID: strPtr(o.AgentID), AgentName: strPtr(o.AgentName), Reason: strPtr(o.Reason), Comment: strPtr(o.Comment)})
	}
	return &optOutsAnyOutput{Body: List(ctx, items, PageOf(paging.PageOf(in.Offset, in.Limit), in.Limit, total),
		func(items []AgentEmailOptOutResponse, p Pagination) any {
			return AgentEmailOptOutListResponse{Items: items, Total: p.Total}
		})}, nil
}

type optOutIDPath struct {
	OptOutID string `path:"optout_id" format:"uuid" doc:"The opt-out's id."`
}

func (s *Server) removeAgentEmailOptOut(ctx context.Context, in *optOutIDPath) (*struct{}, error) {
	if err := s.deps.Mail.RevokeOptOut(ctx, principal(ctx).AccountID, in.OptOutID); err != nil {
		return nil, fault.Name(err, "Opt-out")
	}
	return nil, nil
}

const unsubscribeDoc = "The link every agent e-mail carries (List-Unsubscribe, RFC 8058). GET shows a page that asks to confirm; " +
	"POST (what mail clients send for one-click unsubscribe, or the page's button) records the opt-out: of the agent that sent the mail, " +
	"or with all=true of every agent of the account. Needs no credentials: the signed token names the recipient, and a token that is not " +
	"genuine is answered 400. Opt-outs are listed and revoked with /agents/agent-email-optouts."

type unsubscribeInput struct {
	Token string `query:"token" maxLength:"1024" doc:"The signed token of the link."`
	All   bool   `query:"all" default:"false" doc:"Opt out of every agent of the account, not only the sender."`
}

type htmlOutput struct {
	ContentType string `header:"Content-Type"`
	Body        []byte
}

func page(title, text string) *htmlOutput {
	b := "<!doctype html><html><head><meta charset=\"utf-8\"><title>" + html.EscapeString(title) + "</title></head><body><h1>" +
		html.EscapeString(title) + "</h1>" + text + "</body></html>"
	return &htmlOutput{ContentType: "text/html; charset=utf-8", Body: []byte(b)}
}

func (s *Server) unsubscribePage(ctx context.Context, in *unsubscribeInput) (*htmlOutput, error) {
	u, err := s.deps.Mail.CheckUnsubscribe(in.Token)
	if err != nil {
		return nil, Fail(http.StatusBadRequest, "This unsubscribe link is not valid")
	}
	action := "?token=" + html.EscapeString(in.Token)
	return page("Unsubscribe", "<p>Stop agent e-mail to <b>"+html.EscapeString(u.Recipient)+"</b>?</p>"+
		"<form method=\"post\" action=\""+action+"\"><button>Unsubscribe from this agent</button></form>"+
		"<form method=\"post\" action=\""+action+"&amp;all=true\"><button>Unsubscribe from all agents of this sender</button></form>"), nil
}

func (s *Server) unsubscribe(ctx context.Context, in *unsubscribeInput) (*htmlOutput, error) {
	u, err := s.deps.Mail.Unsubscribe(ctx, in.Token, in.All)
	if err != nil {
		return nil, err
	}
	return page("Unsubscribed", "<p>"+html.EscapeString(u.Recipient)+" will receive no more of these e-mails.</p>"), nil
}
