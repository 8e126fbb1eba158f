package client

import (
	"net/http"
	"testing"
	"time"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"0", 0, true},
		{" 7 ", 7 * time.Second, true},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0, true}, // already past: go now
		{"99999999999999999999", 0, false},
		{"999999999999", 24 * time.Hour, true},
		{"-1", 0, false},
		{"soon", 0, false},
		{"", 0, false},
	} {
		got, ok := parseRetryAfter(tc.in, now)
		if got != tc.want || ok != tc.ok {
			t.Errorf("parseRetryAfter(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestRetryDelay(t *testing.T) {
	p := RetryPolicy{MaxRetries: 3, MaxWait: time.Second, BaseDelay: 100 * time.Millisecond}
	now := time.Now()
	for n, base := range []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond} {
		d, ok := p.delay(n, "", now)
		if !ok || d < base || d > base+base/4 {
			t.Errorf("retry %d: %v, %v; want %v plus at most a quarter", n, d, ok, base)
		}
	}
	if _, ok := p.delay(3, "", now); ok {
		t.Error("a fourth retry of three")
	}
	if d, ok := p.delay(0, "1", now); !ok || d != time.Second {
		t.Errorf("Retry-After at MaxWait: %v, %v", d, ok)
	}
	if _, ok := p.delay(0, "2", now); ok {
		t.Error("a Retry-After past MaxWait was accepted")
	}
	big := RetryPolicy{MaxRetries: 100, MaxWait: time.Second, BaseDelay: time.Second}
	if d, ok := big.delay(80, "", now); !ok || d != time.Second {
		t.Errorf("a late retry is capped at MaxWait: %v, %v", d, ok)
	}
}
