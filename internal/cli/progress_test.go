package cli

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestProgressBar(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	clock := time.Unix(0, 0)
	p := NewProgress(&out, "report.pdf", 4<<20)
	p.now = func() time.Time { return clock }

	p.Set(1 << 20)
	clock = clock.Add(10 * time.Millisecond)
	p.Set(1<<20 + 1) // within the interval: not redrawn
	clock = clock.Add(time.Second)
	p.Set(2 << 20)
	if n := strings.Count(out.String(), "\r"); n != 2 {
		t.Fatalf("redrawn %d times, want 2 (throttled): %q", n, out.String())
	}
	last := out.String()[strings.LastIndex(out.String(), "\r"):]
	for _, want := range []string{"report.pdf", "[============>           ]", " 50%", "2.0 MiB / 4.0 MiB", "MiB/s"} {
		if !strings.Contains(last, want) {
			t.Errorf("bar %q lacks %q", last, want)
		}
	}
	p.Set(4 << 20) // completion always draws
	p.Finish()
	if !strings.Contains(out.String(), "100%") || !strings.HasSuffix(out.String(), "\n") {
		t.Fatalf("finish: %q", out.String())
	}

	// Unknown total: bytes only. Reader and Writer count what passes.
	out.Reset()
	u := NewProgress(&out, "", -1)
	var sink bytes.Buffer
	r := bufio.NewReader(u.Reader(strings.NewReader(strings.Repeat("x", 3000))))
	_, _ = r.WriteTo(u.Writer(&sink))
	u.Finish()
	if !strings.Contains(out.String(), "5.9 KiB") || strings.Contains(out.String(), "%") {
		t.Fatalf("unknown total: %q", out.String())
	}

	// No terminal: nothing drawn.
	silent := NewProgress(nil, "x", 10)
	silent.Set(5)
	silent.Finish()
	if progressFor(&out, "x", 1).w != nil {
		t.Fatal("a buffer is not a terminal: no bar")
	}
}

func TestHumanBytes(t *testing.T) {
	t.Parallel()
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 200 << 20: "200.0 MiB", 3 << 30: "3.0 GiB"} {
		if got := humanBytes(n); got != want {
			t.Errorf("humanBytes(%d) = %q, want %q", n, got, want)
		}
	}
}
