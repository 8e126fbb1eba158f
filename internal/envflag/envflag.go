// Package envflag gives command-line flags their defaults from SERVICE_*
// environment variables, so every setting works both ways and a flag given
// on the command line wins.
package envflag

import (
	"fmt"
	"os"
	"strconv"
)

// String returns $name, or def when unset.
func String(name, def string) string {
	if v, ok := os.LookupEnv(name); ok {
		return v
	}
	return def
}

// Float returns $name parsed, or def when unset; a malformed value is an error.
func Float(name string, def float64) (float64, error) {
	v, ok := os.LookupEnv(name)
	if !ok || v == "" {
		return def, nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return 0, fmt.Errorf("%s=%q: not a number", name, v)
	}
	return f, nil
}
