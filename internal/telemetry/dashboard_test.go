package telemetry_test

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/telemetry"
	"github.com/prometheus/client_golang/prometheus"
)

// exported lists the names of the run-level metrics, their histograms'
// series included, and the API's HTTP metrics.
func exported(t *testing.T) map[string]bool {
	t.Helper()
	reg := prometheus.NewRegistry()
	if err := telemetry.Register(reg); err != nil {
		t.Fatal(err)
	}
	ch := make(chan *prometheus.Desc, 100)
	go func() {
		for _, c := range []prometheus.Collector{reg} {
			c.Describe(ch)
		}
		close(ch)
	}()
	fq := regexp.MustCompile(`fqName: "([a-z_]+)"`)
	out := map[string]bool{"agentry_http_requests_total": true, "agentry_http_request_duration_seconds": true,
		"agentry_job_queue_depth": true} // the API's, and the queue's (jobs package)
	for d := range ch {
		if m := fq.FindStringSubmatch(d.String()); m != nil {
			out[m[1]] = true
		}
	}
	for name := range out {
		if strings.HasSuffix(name, "_seconds") {
			out[name+"_bucket"], out[name+"_count"], out[name+"_sum"] = true, true, true
		}
	}
	return out
}

var metricName = regexp.MustCompile(`agentry_[a-z_]+`)

// TestGrafanaDashboard: docs/grafana-dashboard.json is a dashboard Grafana
// imports as it is — JSON, a Prometheus data source variable every panel
// uses, unique panel ids, every panel placed — and every query names only
// metrics the server exports.
func TestGrafanaDashboard(t *testing.T) {
	raw, err := os.ReadFile("../../docs/grafana-dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Title         string `json:"title"`
		UID           string `json:"uid"`
		SchemaVersion int    `json:"schemaVersion"`
		Templating    struct {
			List []struct{ Name, Type, Query string } `json:"list"`
		} `json:"templating"`
		Panels []struct {
			ID         int    `json:"id"`
			Type       string `json:"type"`
			Title      string `json:"title"`
			Datasource *struct {
				Type, UID string
			} `json:"datasource"`
			GridPos *struct{ H, W, X, Y int } `json:"gridPos"`
			Targets []struct {
				Expr  string `json:"expr"`
				RefID string `json:"refId"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if d.Title == "" || d.UID == "" || d.SchemaVersion < 30 {
		t.Errorf("title %q uid %q schemaVersion %d", d.Title, d.UID, d.SchemaVersion)
	}
	if len(d.Templating.List) != 1 || d.Templating.List[0].Name != "datasource" || d.Templating.List[0].Type != "datasource" || d.Templating.List[0].Query != "prometheus" {
		t.Errorf("templating: %+v", d.Templating)
	}
	known := exported(t)
	used := map[string]bool{}
	ids := map[int]bool{}
	for _, p := range d.Panels {
		if ids[p.ID] || p.ID == 0 {
			t.Errorf("panel %q: id %d not unique", p.Title, p.ID)
		}
		ids[p.ID] = true
		if p.GridPos == nil || p.GridPos.W == 0 || p.GridPos.H == 0 || p.GridPos.X+p.GridPos.W > 24 {
			t.Errorf("panel %q: gridPos %+v", p.Title, p.GridPos)
		}
		if p.Type == "row" {
			continue
		}
		if p.Datasource == nil || p.Datasource.Type != "prometheus" || p.Datasource.UID != "${datasource}" {
			t.Errorf("panel %q: datasource %+v", p.Title, p.Datasource)
		}
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			if strings.Count(tg.Expr, "(") != strings.Count(tg.Expr, ")") || strings.Count(tg.Expr, "{") != strings.Count(tg.Expr, "}") {
				t.Errorf("panel %q: unbalanced query %s", p.Title, tg.Expr)
			}
			for _, m := range metricName.FindAllString(tg.Expr, -1) {
				if !known[m] {
					t.Errorf("panel %q queries %s, which the server does not export", p.Title, m)
				}
				used[strings.TrimSuffix(strings.TrimSuffix(m, "_bucket"), "_count")] = true
			}
		}
	}
	for name := range known {
		if !strings.HasSuffix(name, "_bucket") && !strings.HasSuffix(name, "_count") && !strings.HasSuffix(name, "_sum") &&
			!used[name] && name != "agentry_job_duration_seconds" && name != "agentry_http_request_duration_seconds" {
			t.Errorf("the dashboard shows nothing of %s", name)
		}
	}
}

// TestObservabilityDocListsTheMetrics: docs/observability.md's table names
// every run-level metric, and no metric the server does not export.
func TestObservabilityDocListsTheMetrics(t *testing.T) {
	raw, err := os.ReadFile("../../docs/observability.md")
	if err != nil {
		t.Fatal(err)
	}
	known := exported(t)
	inDoc := map[string]bool{}
	for _, m := range metricName.FindAllString(string(raw), -1) {
		inDoc[m] = true
		if !known[m] {
			t.Errorf("docs/observability.md names %s, which the server does not export", m)
		}
	}
	for name := range known {
		if !strings.HasSuffix(name, "_bucket") && !strings.HasSuffix(name, "_count") && !strings.HasSuffix(name, "_sum") && !inDoc[name] {
			t.Errorf("docs/observability.md does not describe %s", name)
		}
	}
}
