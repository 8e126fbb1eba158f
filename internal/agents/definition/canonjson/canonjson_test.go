package canonjson

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestParseSyntaxErrorPositions(t *testing.T) {
	cases := []struct {
		in         string
		line, col  int
		msgContain string
	}{
		{"[1,,]", 1, 4, "','"},
		{"{\n  \"a\": [1,\n 2,,]}", 3, 4, "','"},
		{`{"a" 1}`, 1, 6, "'1'"},
		{`{"a":tru}`, 1, 9, "'}'"},
		{`x`, 1, 1, "'x'"},
		{`{"a":"b\q"}`, 1, 9, "'q'"},
		{"[1,2", 1, 5, "unexpected end"},
		{"", 1, 1, "unexpected end"},
		{"{}\n{}", 2, 1, "after the top-level value"},
		{"{\"é\": 1,\n \"ü\" 2}", 2, 6, "'2'"},
		{`{1:2}`, 1, 2, "'1'"},
	}
	for _, c := range cases {
		_, _, err := Parse([]byte(c.in))
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Fatalf("%q: want *SyntaxError, got %v", c.in, err)
		}
		if se.Line != c.line || se.Column != c.col || !strings.Contains(se.Msg, c.msgContain) {
			t.Errorf("%q: got line %d col %d %q, want line %d col %d containing %q", c.in, se.Line, se.Column, se.Msg, c.line, c.col, c.msgContain)
		}
	}
}

func TestParseTooDeep(t *testing.T) {
	in := strings.Repeat("[", MaxDepth+2) + strings.Repeat("]", MaxDepth+2)
	_, _, err := Parse([]byte(in))
	var se *SyntaxError
	if !errors.As(err, &se) || !strings.Contains(se.Msg, "deeper") {
		t.Fatalf("want depth error, got %v", err)
	}
	ok := strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)
	if _, _, err := Parse([]byte(ok)); err != nil {
		t.Fatalf("depth %d should parse: %v", MaxDepth, err)
	}
}

func TestParseKeepsNumbersAndReportsDuplicates(t *testing.T) {
	v, dups, err := Parse([]byte(`{"n": 1.50, "big": 12345678901234567890, "a": {"k": 1, "k": 2}}`))
	if err != nil {
		t.Fatal(err)
	}
	m := v.(map[string]any)
	if m["n"] != json.Number("1.50") || m["big"] != json.Number("12345678901234567890") {
		t.Errorf("numbers not kept literally: %#v", m)
	}
	if m["a"].(map[string]any)["k"] != json.Number("2") {
		t.Errorf("last duplicate should win")
	}
	if len(dups) != 1 || dups[0] != "a.k" {
		t.Errorf("dups = %v", dups)
	}
}

func TestPrintCanonical(t *testing.T) {
	a := `{"b": [1, {"z": null, "a": "x<y"}], "a": {}, "c": [], "d": "line\nbreak\u2028"}`
	b := "{\n\"d\":\"line\\nbreak\\u2028\",\"c\":[ ],\"a\":{},\n\"b\":[1,{\"a\":\"x<y\",\"z\":null}]}"
	va, _, err := Parse([]byte(a))
	if err != nil {
		t.Fatal(err)
	}
	vb, _, err := Parse([]byte(b))
	if err != nil {
		t.Fatal(err)
	}
	sa, ixa := Print(va)
	sb, _ := Print(vb)
	if sa != sb {
		t.Fatalf("same payload, different text:\n%s\n---\n%s", sa, sb)
	}
	want := `{
  "a": {},
  "b": [
    1,
    {
      "a": "x<y",
      "z": null
    }
  ],
  "c": [],
  "d": "line\nbreak\u2028"
}`
	if sa != want {
		t.Fatalf("got\n%s\nwant\n%s", sa, want)
	}
	checks := map[string]Pos{"": {1, 1}, "a": {2, 8}, "b": {3, 8}, "b[0]": {4, 5}, "b[1]": {5, 5}, "b[1].z": {7, 12}, "d": {11, 8}}
	for p, want := range checks {
		if got := ixa[p]; got != want {
			t.Errorf("position of %q = %v, want %v", p, got, want)
		}
	}
}

func TestPositionsCountCodePoints(t *testing.T) {
	v, _, _ := Parse([]byte(`{"é": {"ü": true}}`))
	_, ix := Print(v)
	if got := ix[`["é"]`]; got != (Pos{2, 8}) {
		t.Errorf("é at %v", got)
	}
	if got := ix[`["é"]["ü"]`]; got != (Pos{3, 10}) {
		t.Errorf("é.ü at %v", got)
	}
}

func TestLookupFallsBackToAncestor(t *testing.T) {
	v, _, _ := Parse([]byte(`{"a": {"b": [{"c": 1}]}}`))
	_, ix := Print(v)
	pos, found := ix.Lookup("a.b[0].missing")
	if found != "a.b[0]" || pos != ix["a.b[0]"] {
		t.Errorf("lookup = %v %q", pos, found)
	}
	if _, found := ix.Lookup("nope[3]"); found != "" {
		t.Errorf("root fallback, got %q", found)
	}
}

func TestPathRoundTrip(t *testing.T) {
	paths := []string{"", "a", "a.b", "a[0]", "a[0].b_c[12]", `a["x y"]`, `["1a"].b`, `a["q\"uote"]["]"][3]`, `["é"]`, `[0]`}
	for _, p := range paths {
		segs, err := Split(p)
		if err != nil {
			t.Fatalf("%q: %v", p, err)
		}
		if got := Join(segs); got != p {
			t.Errorf("Join(Split(%q)) = %q", p, got)
		}
	}
	for _, bad := range []string{".a", "a..b", "a[", "a[-1]", "a[x]", `a["x`, "a]b"} {
		if _, err := Split(bad); err == nil {
			t.Errorf("Split(%q) should fail", bad)
		}
	}
	if p, ok := Parent(`a["k.k"][2]`); !ok || p != `a["k.k"]` {
		t.Errorf("Parent = %q %v", p, ok)
	}
}

func TestPrintGoValues(t *testing.T) {
	s, _ := Print(map[string]any{"f": 0.5, "i": 3, "l": []string{"x"}, "n": json.Number("7")})
	want := "{\n  \"f\": 0.5,\n  \"i\": 3,\n  \"l\": [\n    \"x\"\n  ],\n  \"n\": 7\n}"
	if s != want {
		t.Errorf("got %s", s)
	}
}

// FuzzCanonical: parsing never panics, printing is a fixed point (printing
// the parse of a canonical text gives the same text), every path of the
// index resolves, and syntax errors are positioned inside the input.
func FuzzCanonical(f *testing.F) {
	for _, s := range []string{`{}`, `[1,2,{"a":"b"}]`, `{"a":{"a":{"a":[]}}}`, `"x"`, `{"k":1,"k":2}`, "[\"\\u2028\"]", `{"a" 1}`, `{"é":[true,false,null,1e5,-0.0]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, _, err := Parse(data)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Line < 1 || se.Column < 1 || se.Offset > int64(len(data)) {
				t.Fatalf("bad error %#v", err)
			}
			return
		}
		s, ix := Print(v)
		v2, _, err := Parse([]byte(s))
		if err != nil {
			t.Fatalf("canonical text does not parse: %v\n%s", err, s)
		}
		s2, ix2 := Print(v2)
		if s != s2 {
			t.Fatalf("not a fixed point:\n%s\n---\n%s", s, s2)
		}
		lines := strings.Split(s, "\n")
		for p, pos := range ix {
			if ix2[p] != pos {
				t.Fatalf("position of %q moved", p)
			}
			if pos.Line < 1 || pos.Line > len(lines) || pos.Column < 1 {
				t.Fatalf("position %v of %q outside the text", pos, p)
			}
			if _, err := Split(p); err != nil {
				t.Fatalf("index path %q does not split: %v", p, err)
			}
		}
	})
}
