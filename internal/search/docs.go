package search

import (
	"io/fs"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/agentry/agentry/docs"
	"github.com/agentry/agentry/internal/llm/offline"
)

// Documentation search reads the Markdown pages embedded in the binary. A
// page's title is its first heading and its summary the first paragraph
// after it; its sections are split at "## " and "### " headings, each with
// the anchor a Markdown renderer gives the heading. Keyword mode scores the
// query's words against titles and summaries; semantic mode embeds the
// sections' text with the offline embedder (the one knowledge uses) and
// ranks pages by their best section, quoting its best sentence.

// DocResult is one page found.
type DocResult struct {
	Slug, Title string
	Anchor      *string
	Snippet     *string
	Highlight   *string
	Score       float64
}

type docPage struct {
	slug, title, summary string
	sections             []docSection
}

type docSection struct {
	anchor    string // "" for the text before the first subheading
	text      string
	sentences []string
	vec       []float32
	sentVecs  [][]float32
}

var (
	docsOnce  sync.Once
	docsPages []docPage
	embedder  = offline.NewEmbedder(0)
)

// maxSectionRunes bounds what is embedded of one section.
const maxSectionRunes = 6000

var (
	reHeading  = regexp.MustCompile(`^(#{1,3})\s+(.+?)\s*#*\s*$`)
	reSentence = regexp.MustCompile(`[^.!?\n]+[.!?]?`)
	reAnchor   = regexp.MustCompile(`[^a-z0-9 _-]+`)
	reMdNoise  = regexp.MustCompile("[`*_>|]+|\\[([^\\]]*)\\]\\([^)]*\\)")
)

func anchorOf(heading string) string {
	a := reAnchor.ReplaceAllString(strings.ToLower(heading), "")
	return strings.ReplaceAll(strings.TrimSpace(a), " ", "-")
}

func plain(s string) string {
	return strings.TrimSpace(reMdNoise.ReplaceAllStringFunc(s, func(m string) string {
		if sub := reMdNoise.FindStringSubmatch(m); sub != nil && sub[1] != "" {
			return sub[1]
		}
		return ""
	}))
}

func loadDocs() {
	entries, _ := fs.Glob(docs.FS, "*.md")
	for _, name := range entries {
		b, err := fs.ReadFile(docs.FS, name)
		if err != nil {
			continue
		}
		p := docPage{slug: strings.TrimSuffix(name, ".md")}
		cur := &docSection{}
		var body []string
		inCode := false
		flush := func() {
			cur.text = strings.TrimSpace(strings.Join(body, "\n"))
			if cur.text != "" {
				p.sections = append(p.sections, *cur)
			}
			body = nil
		}
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "```") {
				inCode = !inCode
			}
			if m := reHeading.FindStringSubmatch(line); m != nil && !inCode {
				if len(m[1]) == 1 && p.title == "" {
					p.title = plain(m[2])
					continue
				}
				flush()
				cur = &docSection{anchor: anchorOf(m[2])}
				body = append(body, plain(m[2])+".")
				continue
			}
			if !inCode && p.summary == "" && p.title != "" && len(p.sections) == 0 && cur.anchor == "" {
				// The summary is the first paragraph after the title.
				if t := strings.TrimSpace(line); t != "" {
					body = append(body, line)
					continue
				} else if len(body) > 0 {
					p.summary = plain(strings.Join(body, " "))
				}
			}
			body = append(body, line)
		}
		flush()
		if p.title == "" {
			p.title = p.slug
		}
		for i := range p.sections {
			s := &p.sections[i]
			text := plain(s.text)
			if r := []rune(text); len(r) > maxSectionRunes {
				text = string(r[:maxSectionRunes])
			}
			s.vec = embedder.Embed(text)
			for _, sent := range reSentence.FindAllString(text, 200) {
				if sent = strings.TrimSpace(sent); len(sent) >= 20 {
					s.sentences = append(s.sentences, sent)
					s.sentVecs = append(s.sentVecs, embedder.Embed(sent))
				}
			}
		}
		docsPages = append(docsPages, p)
	}
}

func pages() []docPage {
	docsOnce.Do(loadDocs)
	return docsPages
}

func words(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-')
	}) {
		if len(w) > 1 && !stop[w] {
			out = append(out, w)
		}
	}
	return out
}

var stop = map[string]bool{"the": true, "a": true, "an": true, "of": true, "to": true, "in": true, "and": true, "or": true,
	"is": true, "how": true, "do": true, "i": true, "what": true, "for": true, "on": true, "with": true, "my": true, "can": true}

// Docs searches the documentation.
func Docs(q, mode string, limit int) []DocResult {
	var out []DocResult
	if mode == "semantic" {
		qv := embedder.Embed(q)
		for _, p := range pages() {
			best, bestScore := -1, 0.0
			for i, s := range p.sections {
				if sc := cosine(qv, s.vec); sc > bestScore {
					best, bestScore = i, sc
				}
			}
			if best < 0 {
				continue
			}
			s := p.sections[best]
			r := DocResult{Slug: p.slug, Title: p.title, Score: round(bestScore)}
			if s.anchor != "" {
				a := s.anchor
				r.Anchor = &a
			}
			hi, hiScore := "", 0.0
			for i, v := range s.sentVecs {
				if sc := cosine(qv, v); sc > hiScore {
					hi, hiScore = s.sentences[i], sc
				}
			}
			if hi != "" {
				r.Highlight = &hi
			}
			snip := clipText(plain(s.text), 240)
			r.Snippet = &snip
			out = append(out, r)
		}
	} else {
		qw := words(q)
		phrase := strings.ToLower(strings.TrimSpace(q))
		for _, p := range pages() {
			title, summary := strings.ToLower(p.title), strings.ToLower(p.summary)
			tw, sw := words(p.title), words(p.summary)
			score := 0.0
			for _, w := range qw {
				switch {
				case slices.Contains(tw, w):
					score += 3
				case strings.Contains(title, w):
					score += 2
				}
				switch {
				case slices.Contains(sw, w):
					score += 1
				case strings.Contains(summary, w):
					score += 0.5
				}
				if strings.Contains(p.slug, w) {
					score += 1
				}
			}
			if phrase != "" && (strings.Contains(title, phrase) || strings.Contains(summary, phrase)) {
				score += 2
			}
			if score == 0 {
				continue
			}
			r := DocResult{Slug: p.slug, Title: p.title, Score: score}
			if p.summary != "" {
				s := clipText(p.summary, 240)
				r.Snippet = &s
			}
			out = append(out, r)
		}
	}
	slices.SortStableFunc(out, func(a, b DocResult) int {
		if a.Score != b.Score {
			if a.Score > b.Score {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Slug, b.Slug)
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

func cosine(a, b []float32) float64 {
	var dot float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
	}
	return dot // both are unit vectors
}

func round(f float64) float64 { return math.Round(f*10000) / 10000 }

func clipText(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
