package server

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// Env is the setting's SERVICE_* variable.
func (s Setting) Env() string {
	return "SERVICE_" + strings.ToUpper(strings.ReplaceAll(s.Name, "-", "_"))
}

// AllSettings is every setting of the table, sections flattened.
func AllSettings() []Setting {
	var out []Setting
	for _, sec := range Settings {
		out = append(out, sec.Settings...)
	}
	return out
}

// BindFlags registers a flag on fs for every setting that has one, whose
// default is the setting's SERVICE_* variable when set, else its table
// default, else c's value; flagless settings are filled from their
// variables at once. A variable that does not parse leaves the default in
// place and is reported in the returned error, for the command to refuse
// to start with (the flags are registered all the same, so --help works).
func BindFlags(fs *pflag.FlagSet, c *Config) error {
	return bind(fs, c, os.LookupEnv)
}

// FromEnvironment is the configuration `agentry serve` would start with
// given no flags: Defaults(), the table's serve defaults, and every
// SERVICE_* variable set. Operator commands (`agentry admin`) use it to
// assemble the same services as the server.
func FromEnvironment() (Config, error) {
	c := Defaults()
	err := bind(nil, &c, os.LookupEnv)
	return c, err
}

func bind(fs *pflag.FlagSet, c *Config, lookup func(string) (string, bool)) error {
	var errs []error
	for _, s := range AllSettings() {
		if s.Default != "" {
			if err := setFromString(s.Field(c), s.Default); err != nil {
				panic(fmt.Sprintf("settings table: %s: default %q: %v", s.Name, s.Default, err))
			}
		}
		if v, ok := lookup(s.Env()); ok && v != "" {
			if err := setFromString(s.Field(c), v); err != nil {
				errs = append(errs, fmt.Errorf("%s=%q: %w", s.Env(), v, err))
			}
		}
		if fs != nil && !s.NoFlag {
			addFlag(fs, s, s.Help+" ("+s.Env()+")", s.Field(c))
		}
	}
	return errors.Join(errs...)
}

// setFromString parses v into the field p points to.
func setFromString(p any, v string) error {
	switch p := p.(type) {
	case *string:
		*p = v
	case *bool:
		b, err := strconv.ParseBool(v)
		if err != nil {
			return errors.New("not true or false")
		}
		*p = b
	case *int:
		n, err := strconv.Atoi(v)
		if err != nil {
			return errors.New("not a whole number")
		}
		*p = n
	case *int64:
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return errors.New("not a whole number")
		}
		*p = n
	case *float64:
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return errors.New("not a number")
		}
		*p = f
	case *time.Duration:
		d, err := time.ParseDuration(v)
		if err != nil {
			return errors.New("not a duration such as 30s or 5m")
		}
		*p = d
	case *[]string:
		*p = commaList(v)
	default:
		return fmt.Errorf("unsupported setting type %T", p)
	}
	return nil
}

func addFlag(fs *pflag.FlagSet, s Setting, help string, p any) {
	switch p := p.(type) {
	case *string:
		fs.StringVar(p, s.Name, *p, help)
	case *bool:
		fs.BoolVar(p, s.Name, *p, help)
	case *int:
		fs.IntVar(p, s.Name, *p, help)
	case *int64:
		fs.Int64Var(p, s.Name, *p, help)
	case *float64:
		fs.Float64Var(p, s.Name, *p, help)
	case *time.Duration:
		fs.DurationVar(p, s.Name, *p, help)
	case *[]string:
		fs.StringSliceVar(p, s.Name, *p, help)
	default:
		panic(fmt.Sprintf("settings table: %s: unsupported type %T", s.Name, p))
	}
}

// commaList splits a comma-separated list, dropping blanks.
func commaList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}
