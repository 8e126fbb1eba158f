package engine

import (
	"context"
	"errors"
	"regexp"
	"testing"
)

// boundedReplace gives what ReplaceAllString gives whenever that fits the
// limit, and refuses exactly when it does not (or, for a pattern that looks
// around its match with $ references, when its worst case does not).
func FuzzBoundedReplace(f *testing.F) {
	f.Add("", "-", "abc", 100)
	f.Add("(a)(b)", "$2$1", "abab", 5)
	f.Add(`\b(\w+)`, "<$1>", "hello world", 20)
	f.Add("(?m)^(.)", "${1}x$$", "a\nb\nc", 3)
	f.Add("a|bbbb", "xx", "abbbbabbbb", 8)
	f.Add("(?P<w>\\w)", "$w$w", "héllo", 50)
	f.Fuzz(func(t *testing.T, pattern, repl, src string, max int) {
		re, err := regexp.Compile(pattern)
		if err != nil || max < 0 || len(src) > 4096 || len(repl) > 64 {
			return
		}
		want := re.ReplaceAllString(src, repl)
		got, err := boundedReplace(context.Background(), re, src, repl, int64(max), "out")
		var le *LimitError
		switch {
		case err == nil:
			if got != want {
				t.Fatalf("%q → %q on %q: got %q, want %q", pattern, repl, src, got, want)
			}
			if len(got) > max {
				t.Fatalf("output of %d bytes passed a limit of %d", len(got), max)
			}
		case errors.As(err, &le):
			if len(want) <= max && !le.Possible {
				t.Fatalf("%q → %q on %q: %d bytes refused at a limit of %d", pattern, repl, src, len(want), max)
			}
		default:
			t.Fatalf("unexpected error %v", err)
		}
	})
}

func TestBoundedReplaceHonoursCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	src := string(make([]byte, 10*ctxCheckEvery))
	_, err := boundedReplace(ctx, regexp.MustCompile(""), src, "", 1<<30, "out")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("want the cancellation, got %v", err)
	}
}
