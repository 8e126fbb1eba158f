package api

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
)

// NUL characters. JSON may carry "\u0000" inside any string, and Go keeps
// it, but PostgreSQL's text types cannot store it: such a name, id or
// description used to reach the database and come back as a 500. Every
// operation's input is checked before its handler runs, so the answer is a
// 422 naming the field, on both databases alike.

const nulMessage = "Text may not contain NUL characters (\\u0000)"

// nulEscape is how a NUL appears in JSON text.
var nulEscape = []byte(`\u0000`)

// nulInInput returns a 422 naming the first parameter or body field of in
// (a pointer to an operation's input struct) that holds a NUL, or nil.
func nulInInput(in any) error {
	v := reflect.ValueOf(in)
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return nil
	}
	var loc []any
	if findNUL(v, &loc, true) {
		return Invalid(loc, nulMessage, "value_error")
	}
	return nil
}

// findNUL walks v, leaving in loc the path of the first string holding a
// NUL. top is the input struct, whose fields are parameters and Body.
func findNUL(v reflect.Value, loc *[]any, top bool) bool {
	switch v.Kind() {
	case reflect.String:
		return strings.IndexByte(v.String(), 0) >= 0
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return false
		}
		return findNUL(v.Elem(), loc, false)
	case reflect.Slice:
		if v.Type() == reflect.TypeOf(json.RawMessage(nil)) {
			return rawNUL(v.Bytes(), loc)
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return false // bytes, not text
		}
		fallthrough
	case reflect.Array:
		for i := range v.Len() {
			if findNUL(v.Index(i), push(loc, i), false) {
				return true
			}
			pop(loc)
		}
	case reflect.Map:
		iter := v.MapRange()
		for iter.Next() {
			k := iter.Key()
			key := ""
			if k.Kind() == reflect.String {
				key = k.String()
			}
			if strings.IndexByte(key, 0) >= 0 {
				*loc = append(*loc, key)
				return true
			}
			if findNUL(iter.Value(), push(loc, key), false) {
				return true
			}
			pop(loc)
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			if top {
				name, where := paramOf(f)
				if where == "" && f.Anonymous {
					// Parameters shared by embedding (agentIDPath…).
					if findNUL(v.Field(i), loc, true) {
						return true
					}
					continue
				}
				if where == "" {
					continue
				}
				n := len(*loc)
				*loc = append(*loc, where)
				if where != "body" {
					*loc = append(*loc, name)
				}
				if findNUL(v.Field(i), loc, false) {
					return true
				}
				*loc = (*loc)[:n]
				continue
			}
			name := jsonName(f)
			if name == "-" {
				continue
			}
			if f.Anonymous && name == "" {
				if findNUL(v.Field(i), loc, false) {
					return true
				}
				continue
			}
			if name == "" {
				name = f.Name
			}
			if findNUL(v.Field(i), push(loc, name), false) {
				return true
			}
			pop(loc)
		}
	}
	return false
}

// rawNUL finds a NUL in raw JSON; a cheap scan first, the walk only when
// the escape is there (it may be a false alarm: an escaped backslash).
func rawNUL(raw []byte, loc *[]any) bool {
	if !bytes.Contains(raw, nulEscape) {
		return false
	}
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return false // huma refused or will refuse it on its own terms
	}
	return findNUL(reflect.ValueOf(&doc).Elem(), loc, false)
}

// paramOf says where a field of an input struct comes from: its name and
// "path", "query", "header", or "body" for Body ("" for neither).
func paramOf(f reflect.StructField) (name, where string) {
	for _, in := range []string{"path", "query", "header"} {
		if n, ok := f.Tag.Lookup(in); ok {
			return strings.Split(n, ",")[0], in
		}
	}
	if f.Name == "Body" {
		return "", "body"
	}
	return "", ""
}

func jsonName(f reflect.StructField) string {
	tag, ok := f.Tag.Lookup("json")
	if !ok {
		return ""
	}
	return strings.Split(tag, ",")[0]
}

func push(loc *[]any, seg any) *[]any {
	*loc = append(*loc, seg)
	return loc
}

func pop(loc *[]any) { *loc = (*loc)[:len(*loc)-1] }
