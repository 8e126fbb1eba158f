package definition

import (
	"context"
	"errors"

	"github.com/agentry/agentry/internal/agents/definition/canonjson"
)

// CheckDefinition parses and validates a bare definition in one call, the
// whole job of PUT /agents/{agent_id}/definition, whose 422 is the standard
// `detail` list rather than an import error: it returns every problem with
// its path under opts.BasePath ("definition" for that request body; build
// each `loc` as ["body", Loc()...]). Malformed JSON is one invalid_json
// problem positioned in raw. The definition is nil when raw does not parse;
// the error is the Resolver's only.
func CheckDefinition(ctx context.Context, raw []byte, opts ValidateOptions) (*Definition, Problems, error) {
	v, dups, err := canonjson.Parse(raw)
	if err != nil {
		var se *canonjson.SyntaxError
		if !errors.As(err, &se) {
			return nil, nil, err
		}
		return nil, Problems{{Severity: SeverityError, Code: CodeInvalidJSON, Path: opts.BasePath, Message: se.Msg, Line: se.Line, Column: se.Column}}, nil
	}
	var probs Problems
	for _, p := range dups {
		probs.warnf(CodeDuplicateKey, prefixPath(opts.BasePath, p), "key appears more than once; the last value is used")
	}
	d := decodeDefinition(v, opts.BasePath, &probs)
	rep, err := Validate(ctx, d, opts)
	if err != nil {
		return nil, nil, err
	}
	return d, append(probs, rep.Problems...), nil
}

// prefixPath puts a path relative to a value under that value's path.
func prefixPath(base, p string) string {
	if base == "" {
		return p
	}
	segs, err := canonjson.Split(p)
	if err != nil {
		return base
	}
	bs, err := canonjson.Split(base)
	if err != nil {
		return base
	}
	return canonjson.Join(append(bs, segs...))
}
