package agents

import (
	"fmt"
	"strings"
	"time"
	_ "time/tzdata" // zone data in the binary: schedules must not depend on the host's zoneinfo

	"github.com/robfig/cron/v3"
)

// cronParser reads the standard five fields (minute, hour, day of month,
// month, day of week) and the @hourly/@daily/@weekly/@monthly/@yearly and
// @every descriptors.
var cronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// ParseSchedule checks a cron expression and a time zone (an IANA name;
// "" means UTC) and returns when the schedule next fires after now.
func ParseSchedule(expr, zone string, now time.Time) (next time.Time, loc *time.Location, err error) {
	expr = strings.TrimSpace(expr)
	if expr == "" {
		return time.Time{}, nil, fmt.Errorf("cron_expression is empty")
	}
	if strings.HasPrefix(expr, "TZ=") || strings.HasPrefix(expr, "CRON_TZ=") {
		return time.Time{}, nil, fmt.Errorf("cron_expression %q names a time zone; give it in timezone instead", expr)
	}
	if zone == "" {
		zone = "UTC"
	}
	if zone == "Local" {
		return time.Time{}, nil, fmt.Errorf("timezone %q depends on the server; name a zone such as Europe/Paris or UTC", zone)
	}
	loc, err = time.LoadLocation(zone)
	if err != nil {
		return time.Time{}, nil, fmt.Errorf("timezone %q is not an IANA time zone such as Europe/Paris or UTC", zone)
	}
	sched, err := cronParser.Parse(expr)
	if err != nil {
		return time.Time{}, nil, fmt.Errorf("cron_expression %q: %v", expr, err)
	}
	next = sched.Next(now.In(loc))
	if next.IsZero() {
		return time.Time{}, nil, fmt.Errorf("cron_expression %q never fires", expr)
	}
	return next.UTC(), loc, nil
}
