package cli

import (
	"bytes"
	"strings"
	"testing"
)

func TestAutoTable(t *testing.T) {
	t.Parallel()
	type item struct {
		ID     string         `json:"id"`
		Score  *float64       `json:"score"`
		Config map[string]any `json:"config"`
		Note   string         `json:"note"`
	}
	type page struct {
		Items []item `json:"items"`
		Total int    `json:"total"`
	}
	half := 0.5
	var b bytes.Buffer
	if err := autoTable(&b, page{Items: []item{{ID: "c1", Score: &half, Config: map[string]any{"k": 1}, Note: strings.Repeat("long ", 40)}, {ID: "c2"}}, Total: 2}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	// Scalar columns in the API's order; nested values left to -o json;
	// long text cut; null as -.
	if len(lines) != 3 || strings.Join(strings.Fields(lines[0]), " ") != "ID SCORE NOTE" ||
		!strings.HasPrefix(lines[1], "c1") || !strings.Contains(lines[1], "0.5") || !strings.HasSuffix(lines[1], "…") ||
		strings.Join(strings.Fields(lines[2]), " ") != "c2 - -" {
		t.Fatalf("page table:\n%s", b.String())
	}
	b.Reset()
	if err := autoTable(&b, map[string]any{"id": "x", "nested": map[string]any{"a": 1}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "id:") || !strings.Contains(b.String(), `{"a":1}`) {
		t.Fatalf("object:\n%s", b.String())
	}
	b.Reset()
	if err := autoTable(&b, []item{}); err != nil || strings.TrimSpace(b.String()) != "(none)" {
		t.Fatalf("empty list: %q %v", b.String(), err)
	}
}
