package governance

import (
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// A literal every match of a pattern must contain lets most texts skip the
// regexp: a substring search is far cheaper than running the pattern over
// a whole step output. Only plain, sound cases are used — a literal of the
// pattern's top-level concatenation — and case-folded literals are used only
// when both literal and text are ASCII, where lower-casing is exact folding.

type literal struct {
	s    string
	fold bool // compare with the lower-cased text
}

// requiredLiteral finds the longest literal every match of pattern contains.
func requiredLiteral(pattern string) (literal, bool) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return literal{}, false
	}
	re = re.Simplify()
	for re.Op == syntax.OpCapture && len(re.Sub) == 1 {
		re = re.Sub[0]
	}
	var best literal
	consider := func(r *syntax.Regexp) {
		if r.Op != syntax.OpLiteral || len(r.Rune) == 0 {
			return
		}
		l := literal{s: string(r.Rune), fold: r.Flags&syntax.FoldCase != 0}
		if l.fold {
			if !isASCII(l.s) {
				return
			}
			l.s = strings.ToLower(l.s)
		}
		if len(l.s) > len(best.s) {
			best = l
		}
	}
	switch re.Op {
	case syntax.OpLiteral:
		consider(re)
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			consider(sub)
		}
	}
	return best, len(best.s) >= 3
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// absent reports that text cannot match: the literal is not in it. It
// never answers true when it cannot be sure.
func (l literal) absent(text, lower string, textASCII bool) bool {
	if l.fold {
		return textASCII && !strings.Contains(lower, l.s)
	}
	return !strings.Contains(text, l.s)
}
