package api

import (
	"reflect"

	"github.com/danielgtaylor/huma/v2"
)

// optionalParam is a query parameter whose absence differs from its zero
// value: supports_tool_use=false asks for models without tool use, while
// leaving it out does not filter. huma fills Value and reports presence.
type optionalParam[T any] struct {
	Value T
	Set   bool
}

// Receiver implements huma.ParamWrapper.
func (o *optionalParam[T]) Receiver() reflect.Value { return reflect.ValueOf(o).Elem().Field(0) }

// Schema documents (and validates) the parameter as its value type.
func (o optionalParam[T]) Schema(r huma.Registry) *huma.Schema {
	return huma.SchemaFromType(r, reflect.TypeFor[T]())
}

// OnParamSet implements huma.ParamReactor.
func (o *optionalParam[T]) OnParamSet(isSet bool, _ any) { o.Set = isSet }

// ptr returns the value, or nil when the parameter was absent.
func (o optionalParam[T]) ptr() *T {
	if !o.Set {
		return nil
	}
	v := o.Value
	return &v
}
