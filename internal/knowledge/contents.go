package knowledge

import (
	"context"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/agentry/agentry/internal/paging"
)

// MaxTextRange bounds the characters one content-details call returns.
const MaxTextRange = 1_000_000

// ContentDetail is a content item with a range of its text.
type ContentDetail struct {
	Content
	Text              *string
	Start, End, Total int
}

// Content returns a content item with its text between rune offsets start
// and end (clamped to the text).
func (s *Service) Content(ctx context.Context, accountID, id string, start, end int) (ContentDetail, error) {
	c, err := s.repo().Content(ctx, accountID, id)
	if err != nil {
		return ContentDetail{}, err
	}
	d := ContentDetail{Content: c}
	if c.TextLength != nil {
		d.Total = *c.TextLength
	}
	start = max(start, 0)
	if end < start {
		end = start
	}
	end = min(end, start+MaxTextRange)
	if c.TextKey == nil {
		d.Start, d.End = start, start
		return d, nil
	}
	rc, err := s.blobs.Get(ctx, *c.TextKey)
	if err != nil {
		return ContentDetail{}, err
	}
	defer rc.Close()
	text, err := runeRange(rc, start, end)
	if err != nil {
		return ContentDetail{}, err
	}
	d.Text = &text
	d.Start = min(start, d.Total)
	d.End = d.Start + utf8.RuneCountInString(text)
	return d, nil
}

// runeRange reads the runes [start, end) of r without holding more than them.
func runeRange(r io.Reader, start, end int) (string, error) {
	buf := make([]byte, 64<<10)
	var out strings.Builder
	pos := 0
	var carry []byte
	for pos < end {
		n, err := r.Read(buf)
		data := append(carry, buf[:n]...)
		carry = nil
		for len(data) > 0 && pos < end {
			ru, size := utf8.DecodeRune(data)
			if ru == utf8.RuneError && size <= 1 && !utf8.FullRune(data) {
				carry = append([]byte(nil), data...)
				break
			}
			if pos >= start {
				out.WriteString(string(data[:size]))
			}
			pos++
			data = data[size:]
		}
		if err == io.EOF {
			return out.String(), nil
		}
		if err != nil {
			return "", err
		}
	}
	return out.String(), nil
}

// ContentText returns a content's whole extracted text (bounded by the
// extraction limit); "" while it is not extracted yet.
func (s *Service) ContentText(ctx context.Context, accountID, id string) (Content, string, error) {
	c, err := s.repo().Content(ctx, accountID, id)
	if err != nil || c.TextKey == nil {
		return c, "", err
	}
	rc, err := s.blobs.Get(ctx, *c.TextKey)
	if err != nil {
		return c, "", err
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, maxIndexedText))
	return c, string(b), err
}

// DeleteContent removes a content item, its chunks (from the index too)
// and its files.
func (s *Service) DeleteContent(ctx context.Context, accountID, id string) error {
	return s.deleteContent(ctx, accountID, id, false)
}

func (s *Service) deleteContent(ctx context.Context, accountID, id string, anySource bool) error {
	c, seqs, err := s.repo().DeleteContent(ctx, accountID, id, anySource)
	if err != nil {
		return err
	}
	s.index.Forget(c.SourceID, seqs)
	s.lex.Forget(c.SourceID, seqs)
	s.deleteBlob(c.BlobKey)
	if c.TextKey != nil {
		s.deleteBlob(*c.TextKey)
	}
	return nil
}

// Embeddings lists a page of a content's chunks with their vectors.
func (s *Service) Embeddings(ctx context.Context, accountID, id string, page, limit int) ([]Chunk, int, error) {
	if _, err := s.repo().Content(ctx, accountID, id); err != nil {
		return nil, 0, err
	}
	return s.repo().ContentChunks(ctx, accountID, id, paging.Offset(page, limit), limit)
}

// SetMetadata sets one metadata key of a content (write_metadata). A key
// the full-text index searches (a description, tags…) reaches this
// process's index at once, other processes' when they next load it.
func (s *Service) SetMetadata(ctx context.Context, accountID, id, key string, value any) error {
	if err := s.repo().SetContentMetadata(ctx, accountID, id, key, value); err != nil {
		return err
	}
	if !slices.Contains(headingKeys, key) {
		return nil
	}
	c, err := s.repo().Content(ctx, accountID, id)
	if err != nil {
		return err
	}
	chunks, err := s.repo().ChunksOfContents(ctx, accountID, []string{id})
	if err != nil {
		return err
	}
	seqs := make([]int64, len(chunks))
	for i, ch := range chunks {
		seqs[i] = ch.Seq
	}
	return s.lex.Refresh(ctx, c.SourceID, seqs)
}
