package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// autoTable renders v in table format for commands without a table of
// their own, so `-o table` never prints JSON: a list — or an object
// holding one list, such as a page of results — becomes rows with a column
// per scalar field, in the order the API sends them; any other object
// becomes field/value lines. Nested values are shown as compact JSON, cut
// to a cell's width; -o json has them whole.
func autoTable(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	n, err := decodeOrdered(json.NewDecoder(bytes.NewReader(b)))
	if err != nil {
		return err
	}
	if list, ok := rowsOf(n); ok {
		return listTable(w, list)
	}
	if obj, ok := n.(object); ok {
		pairs := make([][2]string, len(obj))
		for i, kv := range obj {
			pairs[i] = [2]string{kv.key, cell(kv.val)}
		}
		return writeFields(w, pairs)
	}
	_, err = fmt.Fprintln(w, cell(n))
	return err
}

// maxCell bounds a table cell, in characters.
const maxCell = 60

// object is a JSON object with its keys in order.
type object []field

type field struct {
	key string
	val any
}

// decodeOrdered decodes one JSON value, keeping objects' key order.
func decodeOrdered(dec *json.Decoder) (any, error) {
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			var obj object
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := decodeOrdered(dec)
				if err != nil {
					return nil, err
				}
				obj = append(obj, field{k.(string), v})
			}
			_, err := dec.Token()
			return obj, err
		case '[':
			list := []any{}
			for dec.More() {
				v, err := decodeOrdered(dec)
				if err != nil {
					return nil, err
				}
				list = append(list, v)
			}
			_, err := dec.Token()
			return list, err
		}
	}
	return tok, nil
}

// rowsOf finds the list to show as rows: n itself, or the one list of
// objects n holds (a page's data; when several, one named data, items or
// results).
func rowsOf(n any) ([]any, bool) {
	if list, ok := n.([]any); ok {
		return list, true
	}
	obj, ok := n.(object)
	if !ok {
		return nil, false
	}
	var lists []field
	for _, f := range obj {
		if l, ok := f.val.([]any); ok && (len(l) == 0 || isObject(l[0])) {
			lists = append(lists, f)
		}
	}
	if len(lists) == 1 {
		return lists[0].val.([]any), true
	}
	for _, f := range lists {
		switch f.key {
		case "data", "items", "results":
			return f.val.([]any), true
		}
	}
	return nil, false
}

func isObject(v any) bool { _, ok := v.(object); return ok }

// listTable writes rows of objects with a column per scalar field, or one
// value a line for a list of scalars.
func listTable(w io.Writer, list []any) error {
	if len(list) == 0 {
		_, err := fmt.Fprintln(w, "(none)")
		return err
	}
	// A column per key that holds no object or list in any row.
	var keys []string
	seen, nested := map[string]bool{}, map[string]bool{}
	for _, r := range list {
		obj, ok := r.(object)
		if !ok {
			continue
		}
		for _, f := range obj {
			if !seen[f.key] {
				seen[f.key] = true
				keys = append(keys, f.key)
			}
			if !scalar(f.val) {
				nested[f.key] = true
			}
		}
	}
	var cols []string
	for _, k := range keys {
		if !nested[k] {
			cols = append(cols, k)
		}
	}
	if len(cols) == 0 {
		rows := make([][]string, len(list))
		for i, r := range list {
			rows[i] = []string{cell(r)}
		}
		return writeTable(w, []string{"value"}, rows)
	}
	rows := make([][]string, 0, len(list))
	for _, r := range list {
		obj, _ := r.(object)
		row := make([]string, len(cols))
		for i, c := range cols {
			row[i] = "-"
			for _, f := range obj {
				if f.key == c {
					row[i] = cell(f.val)
				}
			}
		}
		rows = append(rows, row)
	}
	return writeTable(w, cols, rows)
}

func scalar(v any) bool {
	switch v.(type) {
	case object, []any:
		return false
	}
	return true
}

// cell shows one value: strings bare, null as -, nested values as compact
// JSON; all cut to maxCell characters and kept on one line.
func cell(v any) string {
	var s string
	switch t := v.(type) {
	case nil:
		return "-"
	case string:
		s = t
	case json.Number:
		s = t.String()
	case bool:
		s = strconv.FormatBool(t)
	default:
		var b bytes.Buffer
		writeCompact(&b, v)
		s = b.String()
	}
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return "-"
	}
	if utf8.RuneCountInString(s) > maxCell {
		r := []rune(s)
		s = string(r[:maxCell-1]) + "…"
	}
	return s
}

func writeCompact(b *bytes.Buffer, v any) {
	switch t := v.(type) {
	case object:
		b.WriteByte('{')
		for i, f := range t {
			if i > 0 {
				b.WriteByte(',')
			}
			k, _ := json.Marshal(f.key)
			b.Write(k)
			b.WriteByte(':')
			writeCompact(b, f.val)
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range t {
			if i > 0 {
				b.WriteByte(',')
			}
			writeCompact(b, e)
		}
		b.WriteByte(']')
	default:
		e, _ := json.Marshal(t)
		b.Write(e)
	}
}
