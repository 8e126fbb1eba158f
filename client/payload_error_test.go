package client_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/agentry/agentry/client"
)

func TestReadImportLocatesSyntaxErrors(t *testing.T) {
	for in, want := range map[string][2]int{
		"{\n  \"a\": 1,\n  \"b\": [1, 2,,]\n}": {3, 14},
		`{"a": }`:                              {1, 7},
		"{\n\"é\": \"ü\" x}":                   {2, 10},
	} {
		_, err := client.ReadImport(strings.NewReader(in))
		var pe *client.PayloadError
		if !errors.As(err, &pe) || pe.Line != want[0] || pe.Column != want[1] {
			t.Errorf("%q: %v, want line %d column %d", in, err, want[0], want[1])
		}
	}
	if _, err := client.ReadImport(strings.NewReader(`{"a": 1}`)); err != nil {
		t.Fatal(err)
	}
}

func FuzzReadImport(f *testing.F) {
	for _, s := range []string{"{}", `{"a": }`, "[1,,2]", "\n\n{", `"\u00"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := client.ReadImport(strings.NewReader(s))
		if err == nil {
			if !json.Valid(b) {
				t.Fatalf("%q accepted as JSON", s)
			}
			return
		}
		var pe *client.PayloadError
		if errors.As(err, &pe) && (pe.Line < 0 || pe.Column < 0 || pe.Line > strings.Count(s, "\n")+1) {
			t.Fatalf("%q: position %d:%d out of the text", s, pe.Line, pe.Column)
		}
	})
}
