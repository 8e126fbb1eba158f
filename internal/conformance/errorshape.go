package conformance

import (
	"net/http"

	"github.com/getkin/kin-openapi/openapi3"
)

// The error bodies our specification documents (DESIGN.md, Errors). The
// reference declares few error statuses — none declares 401 — so an error
// the reference does not describe is held to these shapes instead. They are
// closed: every field is required and no other field is allowed.
var (
	// errorDetail is {"detail": "human readable"} (400, 401, 403, 404, 409, 413, 429, 503…).
	errorDetail = closedObject(map[string]*openapi3.Schema{
		"detail": openapi3.NewStringSchema().WithMinLength(1),
	})
	// validationDetail is the 422 {"detail": [{loc, msg, type}]}.
	validationDetail = closedObject(map[string]*openapi3.Schema{
		"detail": openapi3.NewArraySchema().WithMinItems(1).WithItems(closedObject(map[string]*openapi3.Schema{
			"loc":  openapi3.NewArraySchema().WithMinItems(1).WithItems(openapi3.NewAnyOfSchema(openapi3.NewStringSchema(), openapi3.NewIntegerSchema())),
			"msg":  openapi3.NewStringSchema().WithMinLength(1),
			"type": openapi3.NewStringSchema().WithMinLength(1),
		})),
	})
	// insufficientCredits is the 402 {"detail": {error, message, account_id}}.
	insufficientCredits = closedObject(map[string]*openapi3.Schema{
		"detail": closedObject(map[string]*openapi3.Schema{
			"error":      openapi3.NewStringSchema().WithEnum("insufficient_credits"),
			"message":    openapi3.NewStringSchema().WithMinLength(1),
			"account_id": openapi3.NewUUIDSchema(),
		}),
	})
)

// errorSchema returns the shape our specification gives an error status,
// and its name for messages.
func errorSchema(status int) (*openapi3.Schema, string) {
	switch status {
	case http.StatusUnprocessableEntity:
		return validationDetail, "validation error {detail: [{loc, msg, type}]}"
	case http.StatusPaymentRequired:
		return insufficientCredits, "insufficient credits {detail: {error, message, account_id}}"
	}
	return errorDetail, `error {"detail": "…"}`
}

// standardErrorSchemas are the reference's own names for the shapes above.
// When the reference declares one of them for a status, our stricter
// version is applied as well (the reference's HTTPValidationError, for
// one, does not even require detail).
var standardErrorSchemas = map[string]bool{
	"#/components/schemas/HTTPValidationError":         true,
	"#/components/schemas/InsufficientCreditsResponse": true,
}

func closedObject(props map[string]*openapi3.Schema) *openapi3.Schema {
	s := openapi3.NewObjectSchema().WithoutAdditionalProperties()
	for name, p := range props {
		s.WithProperty(name, p)
		s.Required = append(s.Required, name)
	}
	return s
}
