package web

import (
	"fmt"

	"github.com/agentry/agentry/client"
)

// The credits usage chart: one bar per day, drawn on the server as SVG
// (the CSP allows no script to draw it, and it needs none).

// usageDays is how many days the chart shows, today included.
const usageDays = 30

type usageBar struct {
	X, Y, W, H int
	Day        string
	Label      string // credits spent, for the bar's title
}

type usageChart struct {
	W, H  int
	Bars  []usageBar
	Max   string // the top of the scale
	First string // the first and last days, under the axis
	Last  string
	Total string
}

// ViewBox is the SVG's viewBox.
func (u usageChart) ViewBox() string { return fmt.Sprintf("0 0 %d %d", u.W, u.H) }

const (
	chartBarW   = 18
	chartGap    = 4
	chartHeight = 120
	chartTop    = 16
	chartBottom = 20
)

func drawUsage(cr *client.Credits) usageChart {
	u := usageChart{H: chartTop + chartHeight + chartBottom}
	if cr == nil || len(cr.Daily) == 0 {
		return u
	}
	u.W = len(cr.Daily) * (chartBarW + chartGap)
	peak, total := 0.0, 0.0
	for _, d := range cr.Daily {
		peak = max(peak, d.Credits)
		total += d.Credits
	}
	for i, d := range cr.Daily {
		h := 0
		if peak > 0 {
			h = int(d.Credits / peak * chartHeight)
		}
		if d.Credits > 0 && h < 1 {
			h = 1 // a day with any spending shows
		}
		u.Bars = append(u.Bars, usageBar{X: i * (chartBarW + chartGap), Y: chartTop + chartHeight - h, W: chartBarW, H: h,
			Day: d.Day, Label: d.Day + ": " + formatCredits(d.Credits) + " credits"})
	}
	u.Max, u.Total = formatCredits(peak), formatCredits(total)
	u.First, u.Last = cr.Daily[0].Day, cr.Daily[len(cr.Daily)-1].Day
	return u
}
