package main

import (
	"fmt"
	"html"
	"math"
	"strings"
	"time"
)

// barColors tell the targets apart, in the order they first appear.
var barColors = []string{"#2b6cb0", "#dd6b20", "#38a169", "#805ad5"}

// chartSVG draws two grouped bar charts side by side: runs/s (with the
// rounds' min–max as a whisker) and p99 latency, by concurrent clients.
func chartSVG(sums []summary, caption string) string {
	const width, height = 960, 400
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#ffffff"/>`+"\n", width, height)
	fmt.Fprintf(&b, `<text x="%d" y="20" text-anchor="middle" font-size="14">%s</text>`+"\n", width/2, html.EscapeString(caption))
	targets, concs := axes(sums)
	for i, t := range targets {
		x := 20 + i*160
		fmt.Fprintf(&b, `<rect x="%d" y="32" width="12" height="12" fill="%s"/><text x="%d" y="43">%s</text>`+"\n", x, barColors[i%len(barColors)], x+18, html.EscapeString(t))
	}
	panel(&b, sums, targets, concs, 0, "runs/s (higher is better; whisker: min–max of rounds)",
		func(s summary) (float64, float64, float64) { return s.RunsPerSec, s.MinRPS, s.MaxRPS }, rate)
	panel(&b, sums, targets, concs, width/2, "p99 latency, ms (lower is better)",
		func(s summary) (float64, float64, float64) {
			v := float64(s.P99) / float64(time.Millisecond)
			return v, v, v
		}, rate)
	b.WriteString("</svg>\n")
	return b.String()
}

func axes(sums []summary) (targets []string, concs []int) {
	seenT, seenC := map[string]bool{}, map[int]bool{}
	for _, s := range sums {
		if !seenT[s.Target] {
			seenT[s.Target] = true
			targets = append(targets, s.Target)
		}
		if !seenC[s.Concurrency] {
			seenC[s.Concurrency] = true
			concs = append(concs, s.Concurrency)
		}
	}
	return targets, concs
}

// panel draws one bar chart in the 480-wide column starting at x0.
func panel(b *strings.Builder, sums []summary, targets []string, concs []int, x0 int, title string,
	value func(summary) (v, lo, hi float64), label func(float64) string) {
	const left, top, plotW, plotH = 60, 80, 390, 260
	px, py := float64(x0+left), float64(top)
	fmt.Fprintf(b, `<text x="%.0f" y="%d" text-anchor="middle">%s</text>`+"\n", px+plotW/2, top-16, html.EscapeString(title))
	peak := 0.0
	for _, s := range sums {
		_, _, hi := value(s)
		peak = math.Max(peak, hi)
	}
	step := niceStep(peak / 4)
	ymax := step * math.Ceil(peak/step)
	if ymax <= 0 {
		ymax, step = 1, 0.25
	}
	y := func(v float64) float64 { return py + plotH - v/ymax*plotH }
	for t := 0.0; t <= ymax+step/2; t += step {
		fmt.Fprintf(b, `<line x1="%.0f" y1="%.1f" x2="%.0f" y2="%.1f" stroke="#e2e8f0"/>`, px, y(t), px+plotW, y(t))
		fmt.Fprintf(b, `<text x="%.0f" y="%.1f" text-anchor="end" fill="#4a5568">%s</text>`+"\n", px-6, y(t)+4, trimNum(t))
	}
	fmt.Fprintf(b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="#4a5568"/>`+"\n", px, py+plotH, px+plotW, py+plotH)
	if len(concs) == 0 || len(targets) == 0 {
		return
	}
	groupW := plotW / float64(len(concs))
	barW := math.Min(40, groupW*0.8/float64(len(targets)))
	for gi, c := range concs {
		gx := px + groupW*float64(gi) + (groupW-barW*float64(len(targets)))/2
		fmt.Fprintf(b, `<text x="%.1f" y="%.0f" text-anchor="middle">%d</text>`+"\n", px+groupW*(float64(gi)+0.5), py+plotH+16, c)
		for ti, t := range targets {
			for _, s := range sums {
				if s.Target != t || s.Concurrency != c {
					continue
				}
				v, lo, hi := value(s)
				x := gx + barW*float64(ti)
				fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s, %d client(s): %s</title></rect>`+"\n",
					x, y(v), barW-2, py+plotH-y(v), barColors[ti%len(barColors)], html.EscapeString(t), c, label(v))
				if hi > lo {
					cx := x + (barW-2)/2
					fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#1a202c"/>`+"\n", cx, y(hi), cx, y(lo))
				}
				fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="middle" font-size="10">%s</text>`+"\n", x+(barW-2)/2, math.Min(y(hi), y(v))-4, label(v))
			}
		}
	}
	fmt.Fprintf(b, `<text x="%.0f" y="%.0f" text-anchor="middle" fill="#4a5568">concurrent clients</text>`+"\n", px+plotW/2, py+plotH+34)
}

// niceStep rounds a raw grid step up to 1, 2 or 5 times a power of ten.
func niceStep(raw float64) float64 {
	if raw <= 0 || math.IsNaN(raw) || math.IsInf(raw, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw {
			return m * p
		}
	}
	return 10 * p
}

func trimNum(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%g", math.Round(v*100)/100)
}
