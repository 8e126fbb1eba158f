package web

import (
	"fmt"
	"html/template"
	"net/http"
	"strings"
	"time"

	"github.com/agentry/agentry/client"
)

// The overview (/console/): the last 24 hours of runs added up (GET
// /runs/summary), a chart of them drawn here as SVG, the open alerts and
// the reviews waiting for the signed-in user.

type overviewView struct {
	Summary      *client.RunsSummary
	FailurePct   string
	Chart        template.HTML
	OpenAlerts   int
	Alerts       []client.Alert
	Reviews      []client.RunReview
	ReviewsTotal int
}

func (c *Console) overview(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	sum, err := cl.RunsSummary(req.Ctx(), 24)
	if err != nil {
		return err
	}
	v := overviewView{Summary: sum, FailurePct: fmt.Sprintf("%.1f%%", 100*sum.FailureRate), Chart: runsChart(sum)}
	// Open alerts are those not resolved or dismissed yet.
	for _, status := range []string{"triggered", "acknowledged"} {
		alerts, err := cl.ListAlerts(req.Ctx(), client.AlertListOptions{Status: status, Limit: 5})
		if err != nil {
			return err
		}
		n := alerts.Total
		if n < 0 {
			n = len(alerts.Items)
		}
		v.OpenAlerts += n
		v.Alerts = append(v.Alerts, alerts.Items...)
	}
	v.Alerts = v.Alerts[:min(len(v.Alerts), 5)]
	reviews, err := cl.ListPendingReviews(req.Ctx(), client.ReviewListOptions{Limit: 5})
	if err != nil {
		return err
	}
	v.Reviews, v.ReviewsTotal = reviews.Items, reviews.Total
	if v.ReviewsTotal < 0 {
		v.ReviewsTotal = len(reviews.Items)
	}
	return req.Page(http.StatusOK, "overview.html", "Overview", "overview", v)
}

// runsChart draws the summary's hourly buckets as stacked bars (completed,
// failed, not ended) in SVG: only numbers and fixed words go into it, and
// its look comes from the stylesheet (classes), as the CSP requires.
func runsChart(s *client.RunsSummary) template.HTML {
	const w, h, top, bottom, left = 720.0, 200.0, 10.0, 24.0, 36.0
	n := len(s.Buckets)
	if n == 0 {
		return ""
	}
	peak := 1
	for _, b := range s.Buckets {
		peak = max(peak, b.Completed+b.Failed+b.Other)
	}
	plotH := h - top - bottom
	slot := (w - left) / float64(n)
	bar := slot * 0.8
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" viewBox="0 0 %.0f %.0f" role="img" aria-label="Runs per hour, last %d hours: completed, failed and not ended">`, w, h, n)
	fmt.Fprintf(&b, `<line class="axis" x1="%.0f" y1="%.1f" x2="%.0f" y2="%.1f"/>`, left, h-bottom, w, h-bottom)
	fmt.Fprintf(&b, `<text class="tick" x="%.0f" y="%.1f" text-anchor="end">%d</text>`, left-4, top+8, peak)
	fmt.Fprintf(&b, `<text class="tick" x="%.0f" y="%.1f" text-anchor="end">0</text>`, left-4, h-bottom)
	for i, bk := range s.Buckets {
		x := left + float64(i)*slot + (slot-bar)/2
		y := h - bottom
		for _, part := range []struct {
			class string
			n     int
		}{{"bar-ok", bk.Completed}, {"bar-failed", bk.Failed}, {"bar-other", bk.Other}} {
			if part.n == 0 {
				continue
			}
			hh := float64(part.n) / float64(peak) * plotH
			y -= hh
			fmt.Fprintf(&b, `<rect class="%s" x="%.1f" y="%.1f" width="%.1f" height="%.1f"><title>%d %s</title></rect>`,
				part.class, x, y, bar, hh, part.n, strings.TrimPrefix(part.class, "bar-"))
		}
		if i%6 == 0 || i == n-1 {
			if t, err := time.Parse(time.RFC3339Nano, bk.Start); err == nil {
				fmt.Fprintf(&b, `<text class="tick" x="%.1f" y="%.1f" text-anchor="middle">%s</text>`, x+bar/2, h-6, t.UTC().Format("15:04"))
			}
		}
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) // built from numbers and fixed text only
}
