package llm

import (
	"unicode"
	"unicode/utf8"
)

// EstimateTokens approximates how many tokens a BPE tokenizer would make of
// s, without any vocabulary: each run of letters or digits costs one token
// per started 6 bytes (common words are one token, long ones split),
// each other visible symbol one token, and each non-Latin letter one token
// (CJK text is roughly a token per character). It is used to price calls
// before they happen and by the offline model to report usage; real
// providers' counts replace it after a call.
func EstimateTokens(s string) int {
	n := 0
	run := 0
	flush := func() {
		if run > 0 {
			n += (run + 5) / 6
			run = 0
		}
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
				run++
			case c == ' ' || c == '\n' || c == '\t' || c == '\r':
				flush()
			default:
				flush()
				n++
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case unicode.Is(unicode.Latin, r):
			run += size
		case unicode.IsSpace(r):
			flush()
		default:
			flush()
			n++
		}
	}
	flush()
	return n
}

// Per-item overheads used by EstimateRequestTokens. Images are billed by
// providers at a few hundred to ~1,600 tokens depending on size; we assume
// the upper middle so that authorisation errs on the side of enough credit.
const (
	messageOverheadTokens = 4
	imageTokensEstimate   = 1000
)

// EstimateRequestTokens approximates the prompt size of req.
func EstimateRequestTokens(req ChatRequest) int {
	n := 0
	for _, m := range req.Messages {
		n += messageOverheadTokens
		for _, p := range m.Parts {
			switch p.Type {
			case PartImage:
				n += imageTokensEstimate
			case PartDocument:
				if p.Text != "" {
					n += EstimateTokens(p.Text)
				} else {
					// ~4 bytes of a PDF per token of extracted text is a
					// generous bound for text-heavy documents.
					n += len(p.Data)/4 + imageTokensEstimate
				}
			default:
				n += EstimateTokens(p.Text)
			}
		}
		for _, tc := range m.ToolCalls {
			n += EstimateTokens(tc.Name) + EstimateTokens(string(tc.Arguments))
		}
	}
	for _, t := range req.Tools {
		n += EstimateTokens(t.Name) + EstimateTokens(t.Description) + EstimateTokens(string(t.Parameters))
	}
	n += EstimateTokens(string(req.ResponseFormat.Schema))
	return n
}
