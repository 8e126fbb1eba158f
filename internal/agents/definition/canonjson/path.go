package canonjson

import (
	"errors"
	"strconv"
	"strings"
)

// Paths are written the way the API documents them
// (`agent.definition.child_steps[0].step_type`): dotted keys, bracketed
// indexes, and keys that are not plain identifiers quoted in brackets
// (`metadata_["my key"]`). The root value has the empty path.

// Key returns the path of member key inside the object at parent.
func Key(parent, key string) string {
	if isIdent(key) {
		if parent == "" {
			return key
		}
		return parent + "." + key
	}
	return parent + "[" + quote(key) + "]"
}

// Index returns the path of element i inside the array at parent.
func Index(parent string, i int) string {
	return parent + "[" + strconv.Itoa(i) + "]"
}

// Segment is one step of a path: an object key or an array index.
type Segment struct {
	Key     string
	Index   int
	IsIndex bool
}

// ErrBadPath reports a string that is not a path produced by Key and Index.
var ErrBadPath = errors.New("canonjson: malformed path")

// Split parses a path back into its segments.
func Split(path string) ([]Segment, error) {
	var segs []Segment
	i := 0
	for i < len(path) {
		switch c := path[i]; {
		case c == '.':
			if i == 0 {
				return nil, ErrBadPath
			}
			i++
			j := i
			for j < len(path) && path[j] != '.' && path[j] != '[' {
				j++
			}
			if !isIdent(path[i:j]) {
				return nil, ErrBadPath
			}
			segs = append(segs, Segment{Key: path[i:j]})
			i = j
		case c == '[':
			if i+1 < len(path) && path[i+1] == '"' {
				end, key, ok := scanQuoted(path, i+1)
				if !ok || end >= len(path) || path[end] != ']' {
					return nil, ErrBadPath
				}
				segs = append(segs, Segment{Key: key})
				i = end + 1
				continue
			}
			j := strings.IndexByte(path[i:], ']')
			if j < 0 {
				return nil, ErrBadPath
			}
			n, err := strconv.Atoi(path[i+1 : i+j])
			if err != nil || n < 0 {
				return nil, ErrBadPath
			}
			segs = append(segs, Segment{Index: n, IsIndex: true})
			i += j + 1
		default:
			if i != 0 {
				return nil, ErrBadPath
			}
			j := 0
			for j < len(path) && path[j] != '.' && path[j] != '[' {
				j++
			}
			if !isIdent(path[:j]) {
				return nil, ErrBadPath
			}
			segs = append(segs, Segment{Key: path[:j]})
			i = j
		}
	}
	return segs, nil
}

// Join is the inverse of Split.
func Join(segs []Segment) string {
	p := ""
	for _, s := range segs {
		if s.IsIndex {
			p = Index(p, s.Index)
		} else {
			p = Key(p, s.Key)
		}
	}
	return p
}

// Parent returns the path of the value containing path; ok is false for the
// root or a malformed path.
func Parent(path string) (string, bool) {
	if path == "" {
		return "", false
	}
	segs, err := Split(path)
	if err != nil || len(segs) == 0 {
		return "", false
	}
	return Join(segs[:len(segs)-1]), true
}

// scanQuoted reads the JSON string starting at path[start] == '"' and
// returns the index just past its closing quote and its decoded value.
func scanQuoted(path string, start int) (int, string, bool) {
	for j := start + 1; j < len(path); j++ {
		switch path[j] {
		case '\\':
			j++
		case '"':
			s, err := strconv.Unquote(path[start : j+1])
			if err != nil {
				// strconv.Unquote is Go syntax; JSON's \/ escape is the one
				// difference our quote() never produces, so a failure here is
				// a malformed path.
				return 0, "", false
			}
			return j + 1, s, true
		}
	}
	return 0, "", false
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// quote renders key as a JSON string that strconv.Unquote reads back.
func quote(key string) string {
	var b strings.Builder
	writeString(&b, key)
	return b.String()
}
