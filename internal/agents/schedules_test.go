package agents

import (
	"strings"
	"testing"
	"time"
)

func TestParseSchedule(t *testing.T) {
	now := time.Date(2026, 7, 6, 3, 0, 0, 0, time.UTC) // a Monday, 05:00 in Paris
	next, loc, err := ParseSchedule("0 6 * * 1", "Europe/Paris", now)
	if err != nil || loc.String() != "Europe/Paris" || !next.Equal(time.Date(2026, 7, 6, 4, 0, 0, 0, time.UTC)) {
		t.Fatalf("next %v %v %v", next, loc, err)
	}
	if next, _, err := ParseSchedule("@daily", "", now); err != nil || !next.Equal(time.Date(2026, 7, 7, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("@daily: %v %v", next, err)
	}
	for _, tc := range []struct{ expr, zone, want string }{
		{"", "UTC", "empty"},
		{"* * *", "UTC", "cron_expression"},
		{"61 * * * *", "UTC", "cron_expression"},
		{"0 6 * * 1", "Mars/Olympus", "IANA"},
		{"0 6 * * 1", "Local", "depends on the server"},
		{"TZ=UTC 0 6 * * 1", "UTC", "give it in timezone"},
		{"0 0 30 2 *", "UTC", "never fires"},
	} {
		if _, _, err := ParseSchedule(tc.expr, tc.zone, now); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q %q: %v, want %q", tc.expr, tc.zone, err, tc.want)
		}
	}
}
