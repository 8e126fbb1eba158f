package api

import (
	"net/http"

	"github.com/agentry/agentry/internal/auth"
	"github.com/danielgtaylor/huma/v2"
)

// Roles are declared in the route table, beside each operation, and
// enforced here, in one place, before the operation reads its input: a
// caller without the role learns nothing of what the input would have done.
// Any member of the account may call an operation that declares nothing.
// Rules that depend on the row (a member deciding only the reviews assigned
// to them) stay in the services, which know the row.

const (
	// metaAdminAction marks an operation only an owner or admin may call;
	// its value completes "Only an owner or admin of the account can …".
	metaAdminAction = "admin_action"
	// metaUserBound marks an operation that needs a credential bound to a
	// user (an account-only API key cannot act for a person); its value
	// names what needs it.
	metaUserBound = "user_bound"
)

// admin declares that o needs the owner or admin role; action says what
// the caller was refused, in the error ("change the blocklist").
func admin(o huma.Operation, action string) huma.Operation {
	return withMetadata(o, metaAdminAction, action)
}

// userBound declares that o needs a credential bound to a user; what names
// the area, in the error ("Email domains").
func userBound(o huma.Operation, what string) huma.Operation {
	return withMetadata(o, metaUserBound, what)
}

func withMetadata(o huma.Operation, key string, v any) huma.Operation {
	if o.Metadata == nil {
		o.Metadata = map[string]any{}
	}
	o.Metadata[key] = v
	return o
}

// authorize enforces the role the route table declares for the operation.
// It runs after authenticate, which put the principal in the context.
func (s *Server) authorize(ctx huma.Context, next func(huma.Context)) {
	if e := roleRefusal(ctx.Operation(), principal(ctx.Context())); e != nil {
		s.writeErr(ctx, e)
		return
	}
	next(ctx)
}

// roleRefusal is the 403 a principal gets for an operation, or nil.
func roleRefusal(op *huma.Operation, p auth.Principal) *Error {
	if public, _ := op.Metadata[metaPublic].(bool); public {
		return nil
	}
	if what, ok := op.Metadata[metaUserBound].(string); ok && p.UserID == "" {
		return Fail(http.StatusForbidden, "%s need an API key or token bound to a user; this key belongs to the account only", what)
	}
	if action, ok := op.Metadata[metaAdminAction].(string); ok && !p.CanAdminister() {
		return Fail(http.StatusForbidden, "Only an owner or admin of the account can %s", action)
	}
	return nil
}
