package conformance

import (
	"fmt"

	"github.com/getkin/kin-openapi/openapi3"
)

// Envelope is the body schema of a list at the strict version: the
// canonical {data: [item], pagination: PaginationResponse} that replaces the
// legacy shapes the reference documents. item names a component schema of
// the reference ("AlertResponse").
func Envelope(item string) SchemaFunc {
	return func(ref *Reference) (*openapi3.Schema, error) {
		schemas := ref.Doc.Components.Schemas
		it, ok := schemas[item]
		if !ok || it.Value == nil {
			return nil, fmt.Errorf("the reference has no schema %q", item)
		}
		page, ok := schemas["PaginationResponse"]
		if !ok || page.Value == nil {
			return nil, fmt.Errorf("the reference has no PaginationResponse schema")
		}
		return envelopeObject(openapi3.NewArraySchema().WithItems(it.Value), page.Value), nil
	}
}

// Component returns a SchemaFunc for a named component schema of the
// reference, for answers that use a schema the operation does not declare.
func Component(name string) SchemaFunc {
	return func(ref *Reference) (*openapi3.Schema, error) {
		s, ok := ref.Doc.Components.Schemas[name]
		if !ok || s.Value == nil {
			return nil, fmt.Errorf("the reference has no schema %q", name)
		}
		return s.Value, nil
	}
}
