package cli

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// Progress draws a one-line progress bar for a transfer on a terminal
// (stderr, so it never mixes with the output on stdout):
//
//	report.pdf [=========>          ]  48%  12.0 MiB / 25.0 MiB  8.1 MiB/s
//
// With an unknown total it shows the bytes and the rate only. It redraws at
// most every interval, and is safe to update from the goroutine that
// streams the transfer.
type Progress struct {
	w        io.Writer
	label    string
	total    int64 // -1 when unknown
	width    int
	interval time.Duration
	now      func() time.Time

	mu    sync.Mutex
	done  int64
	start time.Time
	drawn time.Time
}

// NewProgress returns a bar writing to w; nil w (not a terminal) makes a
// bar that draws nothing, so callers need no conditionals.
func NewProgress(w io.Writer, label string, total int64) *Progress {
	if total <= 0 {
		total = -1
	}
	return &Progress{w: w, label: label, total: total, width: 24, interval: 100 * time.Millisecond, now: time.Now}
}

// progressFor is the bar for a command: drawn on stderr when it is a terminal.
func progressFor(stderr io.Writer, label string, total int64) *Progress {
	if !isTerminal(stderr) {
		return NewProgress(nil, label, total)
	}
	return NewProgress(stderr, label, total)
}

// Set records the bytes transferred so far.
func (p *Progress) Set(n int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if p.start.IsZero() {
		p.start = now
	}
	p.done = n
	if now.Sub(p.drawn) >= p.interval || (p.total > 0 && n >= p.total) {
		p.draw(now)
	}
}

// Add records n more bytes.
func (p *Progress) Add(n int64) {
	p.mu.Lock()
	done := p.done
	p.mu.Unlock()
	p.Set(done + n)
}

// Reader counts what is read through r.
func (p *Progress) Reader(r io.Reader) io.Reader { return &progressReader{r, p} }

// Writer counts what is written through w.
func (p *Progress) Writer(w io.Writer) io.Writer { return &progressWriter{w, p} }

// Finish draws the final state and ends the line.
func (p *Progress) Finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.w == nil {
		return
	}
	if p.start.IsZero() {
		p.start = p.now()
	}
	p.draw(p.now())
	fmt.Fprintln(p.w)
}

func (p *Progress) draw(now time.Time) {
	p.drawn = now
	if p.w == nil {
		return
	}
	var b strings.Builder
	b.WriteString("\r")
	if p.label != "" {
		b.WriteString(p.label + " ")
	}
	if p.total > 0 {
		frac := min(float64(p.done)/float64(p.total), 1)
		filled := int(frac * float64(p.width))
		bar := strings.Repeat("=", filled)
		if filled < p.width {
			bar += ">" + strings.Repeat(" ", p.width-filled-1)
		}
		fmt.Fprintf(&b, "[%s] %3.0f%%  %s / %s", bar, frac*100, humanBytes(p.done), humanBytes(p.total))
	} else {
		b.WriteString(humanBytes(p.done))
	}
	if el := now.Sub(p.start).Seconds(); el > 0 {
		fmt.Fprintf(&b, "  %s/s", humanBytes(int64(float64(p.done)/el)))
	}
	// Pad so a shorter line fully covers the previous one.
	b.WriteString("   ")
	_, _ = io.WriteString(p.w, b.String())
}

// humanBytes formats a size in binary units.
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

type progressReader struct {
	r io.Reader
	p *Progress
}

func (r *progressReader) Read(b []byte) (int, error) {
	n, err := r.r.Read(b)
	if n > 0 {
		r.p.Add(int64(n))
	}
	return n, err
}

type progressWriter struct {
	w io.Writer
	p *Progress
}

func (w *progressWriter) Write(b []byte) (int, error) {
	n, err := w.w.Write(b)
	if n > 0 {
		w.p.Add(int64(n))
	}
	return n, err
}
