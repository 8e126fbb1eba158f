package definition

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestAttachmentContract(t *testing.T) {
	d := mustParse(t, `{"child_steps":[
	  {"id":"read","name":"Read","step_type":"prompt_call","model":"m",
	   "prompt_template":"Compare {{attachments[\"report.pdf\"]}} with {{attachments[2]}} and {{attachments[*.csv]}}",
	   "child_steps":[{"id":"sum","name":"Sum","step_type":"prompt_call","model":"m","prompt_template":"{{attachments[0]}} {{attachments[\"*.csv\"]}}"}]},
	  {"id":"note","name":"Note","step_type":"text","text":"static"}]}`)
	c := d.AttachmentContract()
	two := 2
	want := AttachmentSummary{ExactNames: []string{"report.pdf"}, IndexesMax: &two, Kinds: []string{"index", "name", "pattern"}, Patterns: []string{"*.csv"}}
	if !c.RequiresUploads || !reflect.DeepEqual(c.Agent, want) {
		t.Fatalf("contract = %+v", c)
	}
	if len(c.Steps) != 2 || c.Steps[0].StepID != "read" || c.Steps[1].StepID != "sum" || *c.Steps[1].Summary.IndexesMax != 0 {
		t.Errorf("per-step = %+v", c.Steps)
	}
	b, _ := json.Marshal(c)
	if string(b) != `{"requires_uploads":true,"agent":{"exact_names":["report.pdf"],"indexes_max":2,"kinds":["index","name","pattern"],"patterns":["*.csv"]}}` {
		t.Errorf("wire form %s", b)
	}

	cases := []struct {
		files []string
		kinds []string
	}{
		{[]string{"report.pdf", "a.csv", "x.txt"}, nil},
		{[]string{"report.pdf", "a.csv"}, []string{"index"}},
		{[]string{"REPORT.pdf", "a.csv", "b"}, []string{"name"}},
		{[]string{"report.pdf", "a.tsv", "b"}, []string{"pattern"}},
		{nil, []string{"name", "index", "pattern"}},
	}
	for _, k := range cases {
		var kinds []string
		for _, u := range c.Unmet(k.files) {
			kinds = append(kinds, u.Kind)
		}
		if !reflect.DeepEqual(kinds, k.kinds) {
			t.Errorf("Unmet(%v) kinds = %v, want %v", k.files, kinds, k.kinds)
		}
	}
	many := make([]string, MaxUploadsPerRun+1)
	for i := range many {
		many[i] = "f.csv"
	}
	many[0] = "report.pdf"
	if u := c.Unmet(many); len(u) != 1 || u[0].Kind != UnmetTooMany {
		t.Errorf("too many: %+v", u)
	}
}

func TestAttachmentContractImplicitAndNone(t *testing.T) {
	none := mustParse(t, `{"child_steps":[{"id":"t","name":"T","step_type":"text","text":"Good morning"}]}`)
	c := none.AttachmentContract()
	if c.RequiresUploads {
		t.Fatalf("a static agent takes no uploads: %+v", c)
	}
	if u := c.Unmet([]string{"a.pdf"}); len(u) != 1 || u[0].Kind != UnmetNotAccepted {
		t.Errorf("uploads to a static agent: %+v", u)
	}
	if u := c.Unmet(nil); len(u) != 0 {
		t.Errorf("no uploads, nothing unmet: %+v", u)
	}
	b, _ := json.Marshal(c)
	if string(b) != `{"requires_uploads":false,"agent":{"exact_names":[],"indexes_max":null,"kinds":[],"patterns":[]}}` {
		t.Errorf("wire form %s", b)
	}

	// display_result renders {{input}} by default: the input, with every
	// upload, reaches it.
	implicit := mustParse(t, `{"child_steps":[{"id":"d","name":"D","step_type":"display_result"}]}`)
	c = implicit.AttachmentContract()
	if !c.RequiresUploads || !reflect.DeepEqual(c.Agent.Kinds, []string{KindImplicit}) {
		t.Fatalf("implicit: %+v", c)
	}
	if u := c.Unmet([]string{"anything.bin"}); len(u) != 0 {
		t.Errorf("implicit accepts any batch: %+v", u)
	}
	all := mustParse(t, `{"child_steps":[{"id":"p","name":"P","step_type":"prompt_call","model":"m","prompt_template":"Describe {{agent.attachments}}"}]}`)
	if k := all.AttachmentContract().Agent.Kinds; !reflect.DeepEqual(k, []string{KindAll}) {
		t.Errorf("all kinds = %v", k)
	}
}

func TestMatchGlob(t *testing.T) {
	cases := []struct {
		pat, name string
		want      bool
	}{
		{"*.csv", "data.csv", true},
		{"*.csv", "data.csv.bak", false},
		{"*.csv", "dir/data.csv", true},
		{"report-??.pdf", "report-07.pdf", true},
		{"report-??.pdf", "report-7.pdf", false},
		{"[ab]*", "beta", true},
		{"[!ab]*", "beta", false},
		{"[a-c]x", "bx", true},
		{"[]]x", "]x", true},
		{"[", "[", true},
		{"a[", "a[", true},
		{"*", "", true},
		{"", "", true},
		{"?", "é", true},
		{"*é*", "café.txt", true},
		{"*a*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false},
		{"Report.PDF", "report.pdf", false},
	}
	for _, c := range cases {
		if got := MatchGlob(c.pat, c.name); got != c.want {
			t.Errorf("MatchGlob(%q, %q) = %v", c.pat, c.name, got)
		}
	}
}
