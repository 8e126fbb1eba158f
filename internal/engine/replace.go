package engine

import (
	"context"
	"regexp"
	"regexp/syntax"
	"strings"
)

// abortReplace is panicked from inside a regexp callback to stop a
// replacement part-way, and recovered by boundedReplace: regexp offers no
// other way to leave ReplaceAllStringFunc before the end of its input.
type abortReplace struct{ err error }

// ctxCheckEvery is how many matches pass between two looks at the run's
// context during a replacement.
const ctxCheckEvery = 1024

// boundedReplace is re.ReplaceAllString(src, repl) that never builds an
// output much longer than max and stops when ctx is cancelled. An empty
// pattern matches between every two characters, so a few rules can
// multiply their input a hundred-thousandfold; the output must stop
// growing at the limit rather than be measured once it exists.
//
// The callback sees each match in turn. projected is what the output
// would be if no later match changed anything; later matches can shrink it
// by at most len(src), so once projected passes max+len(src) the result
// is certain to exceed max, and the text built so far (at most projected)
// is dropped there. A literal replacement is applied in that one pass. A
// replacement with $ references is expanded per match in the same pass
// when the pattern allows (see wholeMatcher); otherwise it is first sized
// for its worst case (each reference as long as the whole match, which
// holds it) in a pass that writes nothing, and applied only if that fits.
func boundedReplace(ctx context.Context, re *regexp.Regexp, src, repl string, max int64, what string) (out string, err error) {
	defer func() {
		if r := recover(); r != nil {
			a, ok := r.(abortReplace)
			if !ok {
				panic(r)
			}
			out, err = "", a.err
		}
	}()
	dollars := int64(strings.Count(repl, "$"))
	srcLen := int64(len(src))
	projected := srcLen
	matches := 0
	tooLong := func(possible bool) error {
		e := stepOutputError(what, max)
		e.Possible = possible
		return e
	}
	visit := func(grow int64, possible bool) {
		if matches++; matches%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				panic(abortReplace{err})
			}
		}
		if projected += grow; projected-srcLen > max {
			panic(abortReplace{tooLong(possible)})
		}
	}
	if dollars == 0 {
		out = re.ReplaceAllStringFunc(src, func(match string) string {
			visit(int64(len(repl))-int64(len(match)), false)
			return repl
		})
		if int64(len(out)) > max {
			return "", tooLong(false)
		}
		return out, nil
	}
	if whole, ok := wholeMatcher(re); ok {
		var buf []byte
		out = re.ReplaceAllStringFunc(src, func(match string) string {
			buf = whole.ExpandString(buf[:0], repl, match, whole.FindStringSubmatchIndex(match))
			visit(int64(len(buf))-int64(len(match)), false)
			return string(buf)
		})
		if int64(len(out)) > max {
			return "", tooLong(false)
		}
		return out, nil
	}
	re.ReplaceAllStringFunc(src, func(match string) string {
		visit(int64(len(repl))+(dollars-1)*int64(len(match)), true)
		return ""
	})
	if projected > max {
		return "", tooLong(true)
	}
	return re.ReplaceAllString(src, repl), nil
}

// wholeMatcher returns re anchored at both ends, when matching it against
// a match's own text gives the same groups as the match had in its input:
// that holds unless the pattern asserts something about the text around a
// position (^, $, \b, \B, \A, \z), which differs at the edges of the
// match's text. The groups then expand a $ replacement of each match
// exactly, through ReplaceAllStringFunc, which can be stopped part-way.
func wholeMatcher(re *regexp.Regexp) (*regexp.Regexp, bool) {
	tree, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil || assertsContext(tree) {
		return nil, false
	}
	whole, err := regexp.Compile(`\A(?:` + re.String() + `)\z`)
	return whole, err == nil
}

func assertsContext(r *syntax.Regexp) bool {
	switch r.Op {
	case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true
	}
	for _, sub := range r.Sub {
		if assertsContext(sub) {
			return true
		}
	}
	return false
}
