package server

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// The files whose configuration tables are generated from Settings, and
// the markers around the generated part.
var SettingsDocFiles = []string{"README.md", filepath.Join("docs", "configuration.md")}

const (
	settingsBegin = "<!-- settings: generated from internal/server/settings.go by `go generate ./internal/server`; do not edit -->"
	settingsEnd   = "<!-- end of settings -->"
)

// SettingsMarkdown renders the table: one heading and table per section.
func SettingsMarkdown() string {
	c := Defaults()
	_ = bind(nil, &c, func(string) (string, bool) { return "", false }) // the table's serve defaults only
	var b strings.Builder
	for i, sec := range Settings {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "### %s\n\n| flag | variable | default | meaning |\n|---|---|---|---|\n", sec.Title)
		for _, s := range sec.Settings {
			flag := "`--" + s.Name + "`"
			if s.NoFlag {
				flag = "(no flag)"
			}
			fmt.Fprintf(&b, "| %s | `%s` | %s | %s |\n", flag, s.Env(), docDefault(s, s.Field(&c)), s.Help)
		}
	}
	return b.String()
}

// docDefault is the default as a reader wants it: 10 MiB, 15m, none.
func docDefault(s Setting, p any) string {
	if s.DocDefault != "" {
		return s.DocDefault
	}
	code := func(v string) string { return "`" + v + "`" }
	switch p := p.(type) {
	case *string:
		if *p == "" {
			return "none"
		}
		return code(*p)
	case *bool:
		return code(strconv.FormatBool(*p))
	case *int:
		return code(strconv.Itoa(*p))
	case *int64:
		if strings.HasSuffix(s.Name, "-bytes") && *p >= 1<<20 && *p%(1<<20) == 0 {
			return fmt.Sprintf("%d MiB", *p>>20)
		}
		return code(strconv.FormatInt(*p, 10))
	case *float64:
		return code(strconv.FormatFloat(*p, 'f', -1, 64))
	case *time.Duration:
		return code(shortDuration(*p))
	case *[]string:
		if len(*p) == 0 {
			return "none"
		}
		return code(strings.Join(*p, ","))
	}
	return ""
}

// shortDuration writes 10m for 10m0s and 168h for 168h0m0s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// WriteSettingsDocs rewrites the generated part of each doc file under
// root (the repository).
func WriteSettingsDocs(root string) error {
	for _, f := range SettingsDocFiles {
		p := filepath.Join(root, f)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out, err := ReplaceSettings(string(b))
		if err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		if out != string(b) {
			if err := os.WriteFile(p, []byte(out), 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// ReplaceSettings returns doc with the part between the markers replaced
// by SettingsMarkdown.
func ReplaceSettings(doc string) (string, error) {
	i := strings.Index(doc, settingsBegin)
	j := strings.Index(doc, settingsEnd)
	if i < 0 || j < i {
		return "", errors.New("no generated settings markers")
	}
	return doc[:i+len(settingsBegin)] + "\n\n" + SettingsMarkdown() + "\n" + doc[j:], nil
}
