package agents

import (
	"context"
	"encoding/json"

	def "github.com/agentry/agentry/internal/agents/definition"
)

// maxAlternatives is how many replacements a preview offers per unresolved
// reference.
const maxAlternatives = 5

// PreviewImport validates a payload without saving anything and lists the
// entities it references that this account lacks, each with the account's
// likeliest replacements by name.
func (s *Service) PreviewImport(ctx context.Context, accountID string, payload json.RawMessage) (def.Preview, error) {
	im, err := def.Import(ctx, payload, def.ImportOptions{Mode: def.ModePreview, Resolver: s.resolver(accountID),
		ServerRules: s.serverRules()})
	if err != nil {
		return def.Preview{}, err
	}
	p := im.Preview()
	cands := map[def.RefKind][]def.Candidate{}
	for i, u := range p.UnresolvedRefs {
		c, ok := cands[u.Category]
		if !ok {
			if c, err = s.candidates(ctx, accountID, u.Category); err != nil {
				return def.Preview{}, err
			}
			cands[u.Category] = c
		}
		name := ""
		if u.RefName != nil {
			name = *u.RefName
		}
		p.UnresolvedRefs[i].Alternatives = def.RankAlternatives(name, c, maxAlternatives, def.DefaultMinSimilarity)
	}
	return p, nil
}
