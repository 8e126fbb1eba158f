package knowledge

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/agentry/agentry/internal/knowledge/chunk"
	"github.com/agentry/agentry/internal/models/catalog"
	"github.com/agentry/agentry/internal/paging"
	"github.com/agentry/agentry/internal/store"
)

// CreateSource is a request to create a source.
type CreateSource struct {
	Name, SourceType string
	// URLID names a URL record, or is itself an http(s) URL, from which a
	// record is made: an rss or website source is created from its URL in
	// one call. URL is the same, as its own field.
	URLID, URL                 *string
	IndexMode                  *string
	ChunkSize, ChunkOverlap    *int
	ChunkSeparators            *string // a JSON list of strings, or one separator
	ChunkRegexSeparators       *bool
	ChunkLanguage              *string
	EmbeddingModel             *string
	Dimensions                 *int
	ContentFilter              *string
	MediaTypes                 []string
	Polling, PollingAction     *string
	PollingMaxItems, Retention *int
	// SystemManaged marks a source another area provisions and owns (a
	// memory bank's): users cannot delete it or change more than its
	// retention; the owner deletes it with DeleteManagedSource.
	SystemManaged bool
}

// Polling actions.
const (
	PollIndex  = "index"  // new items become contents and are indexed (default)
	PollUpdate = "update" // as index, and changed items get a new version
)

// MaxPollingItems bounds polling_max_items.
const MaxPollingItems = 1000

// ParsePolling turns a polling setting into an interval: hourly, daily,
// weekly, or a duration from 5m to 30 days ("15m", "6h"). "" and "never"
// mean no polling (0).
func ParsePolling(p string) (time.Duration, error) {
	switch strings.ToLower(strings.TrimSpace(p)) {
	case "", "never", "none", "manual":
		return 0, nil
	case "hourly":
		return time.Hour, nil
	case "daily":
		return 24 * time.Hour, nil
	case "weekly":
		return 7 * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(p)
	if err != nil || d < 5*time.Minute || d > 30*24*time.Hour {
		return 0, fmt.Errorf("polling is hourly, daily, weekly, never, or a duration from 5m to 720h")
	}
	return d, nil
}

var mediaKinds = []string{"images", "video"}

// CreateSource validates and stores a source.
func (s *Service) CreateSource(ctx context.Context, accountID string, in CreateSource) (Source, error) {
	src := Source{AccountID: accountID, Name: strings.TrimSpace(in.Name), ContentFilter: "all", EmbeddingModel: OfflineEmbeddingModel,
		SystemManaged: in.SystemManaged}
	if src.Name == "" || len(in.Name) > 255 {
		return Source{}, invalid("name", "a name of 1 to 255 characters is required")
	}
	mode := ""
	if in.IndexMode != nil {
		mode = *in.IndexMode
	}
	switch in.SourceType {
	case TypeFileUploads:
		src.SourceType = TypeCustomIndex
		if mode == "" {
			mode = ModeFastAndCheap
		}
	case TypeCustomIndex, TypeRSS, TypeWebsite:
		src.SourceType = in.SourceType
	default:
		return Source{}, invalid("source_type", "source_type is rss, website or custom_index (file_uploads is accepted as custom_index)")
	}
	if mode == "" {
		mode = ModeFastAndCheap
		if src.SourceType != TypeCustomIndex {
			mode = ModeBalanced
		}
	}
	preset, ok := Presets[mode]
	if !ok {
		return Source{}, invalid("index_mode", "index_mode is fast_and_cheap, balanced, slow_and_thorough or custom")
	}
	if src.SourceType == TypeCustomIndex || in.IndexMode != nil {
		src.IndexMode = &mode
	}
	src.Dimensions, src.ChunkSize, src.ChunkOverlap = preset.Dimensions, preset.ChunkSize, preset.ChunkOverlap
	// Explicit chunking and embedding settings override the preset (the
	// contract names them for custom; we honour them for every mode).
	if in.ChunkSize != nil {
		src.ChunkSize = *in.ChunkSize
		if in.ChunkOverlap == nil && src.ChunkOverlap >= src.ChunkSize {
			src.ChunkOverlap = src.ChunkSize / 5
		}
	}
	if in.ChunkOverlap != nil {
		src.ChunkOverlap = *in.ChunkOverlap
	}
	if in.ChunkRegexSeparators != nil {
		src.ChunkRegexSeparators = *in.ChunkRegexSeparators
	}
	if in.ChunkLanguage != nil && *in.ChunkLanguage != "" {
		l := strings.ToLower(*in.ChunkLanguage)
		src.ChunkLanguage = &l
	}
	if in.ChunkSeparators != nil && *in.ChunkSeparators != "" {
		var seps []string
		if err := json.Unmarshal([]byte(*in.ChunkSeparators), &seps); err != nil {
			seps = []string{*in.ChunkSeparators}
		}
		src.ChunkSeparators = seps
	}
	if err := chunkOptions(src).Check(); err != nil {
		return Source{}, invalid("chunk_size", strings.TrimPrefix(err.Error(), chunk.ErrOptions.Error()+": "))
	}
	if in.EmbeddingModel != nil && *in.EmbeddingModel != "" && *in.EmbeddingModel != OfflineEmbeddingModel {
		m, ok := s.catalog.Get(*in.EmbeddingModel)
		if !ok || m.Kind != catalog.KindEmbedding {
			return Source{}, invalid("embedding_model", fmt.Sprintf("%q is not an embedding model of the catalog", *in.EmbeddingModel))
		}
		src.EmbeddingModel = m.ID
	}
	if in.Dimensions != nil {
		if *in.Dimensions < 8 || *in.Dimensions > 4096 {
			return Source{}, invalid("dimensions", "dimensions are between 8 and 4096")
		}
		src.Dimensions = *in.Dimensions
	}
	if in.ContentFilter != nil && *in.ContentFilter != "" {
		src.ContentFilter = *in.ContentFilter
	}
	src.MediaTypes = []string{}
	for _, m := range in.MediaTypes {
		if slices.Contains(mediaKinds, m) && !slices.Contains(src.MediaTypes, m) {
			// Stored as asked; the offline embedder indexes text only.
			src.MediaTypes = append(src.MediaTypes, m)
		}
	}
	if in.Retention != nil {
		if *in.Retention <= 0 || *in.Retention > 36500 {
			return Source{}, invalid("retention", "retention is a number of days from 1 to 36500")
		}
		src.Retention = in.Retention
	}
	if in.PollingMaxItems != nil {
		if *in.PollingMaxItems <= 0 || *in.PollingMaxItems > MaxPollingItems {
			return Source{}, invalid("polling_max_items", fmt.Sprintf("polling_max_items is from 1 to %d", MaxPollingItems))
		}
		src.PollingMaxItems = in.PollingMaxItems
	}
	if in.PollingAction != nil && *in.PollingAction != "" {
		a := strings.ToLower(*in.PollingAction)
		if a != PollIndex && a != PollUpdate {
			return Source{}, invalid("polling_action", "polling_action is index (new items only) or update (new and changed items)")
		}
		src.PollingAction = &a
	}
	if src.SourceType == TypeRSS || src.SourceType == TypeWebsite {
		raw := in.URL
		if raw == nil || *raw == "" {
			raw = in.URLID
		}
		if raw == nil || *raw == "" {
			return Source{}, invalid("url_id", "rss and website sources need url_id: a URL record id, or the URL itself")
		}
		u, id, err := s.resolveURL(ctx, accountID, *raw)
		if err != nil {
			return Source{}, err
		}
		src.URL, src.URLID = &u, &id
		interval := 24 * time.Hour // a feed or site is polled daily unless told otherwise
		if in.Polling != nil {
			if interval, err = ParsePolling(*in.Polling); err != nil {
				return Source{}, invalid("polling", err.Error())
			}
			p := *in.Polling
			src.Polling = &p
		} else {
			p := "daily"
			src.Polling = &p
		}
		if src.PollingAction == nil {
			a := PollIndex
			if src.SourceType == TypeWebsite {
				a = PollUpdate
			}
			src.PollingAction = &a
		}
		if src.PollingMaxItems == nil {
			n := 50
			src.PollingMaxItems = &n
		}
		// The first poll is due at once; the interval applies after it.
		now := store.Now()
		src.NextPollAt = &now
		if interval == 0 {
			src.NextPollAt = &now // one first pull, then no polling
		}
	} else {
		if in.Polling != nil && *in.Polling != "" {
			if _, err := ParsePolling(*in.Polling); err != nil {
				return Source{}, invalid("polling", err.Error())
			}
			p := *in.Polling
			src.Polling = &p // stored; a content store has nothing to poll
		}
		u := "custom-index://" + accountID
		src.URL = &u
	}
	out, err := s.repo().CreateSource(ctx, src)
	if err != nil {
		return Source{}, err
	}
	if src.SourceType == TypeCustomIndex {
		u := "custom-index://" + out.ID
		out.URL = &u
	}
	return out, nil
}

// resolveURL turns url_id into a URL and its record: an existing record's
// id, or an http(s) URL for which a record is made (or reused).
func (s *Service) resolveURL(ctx context.Context, accountID, raw string) (string, string, error) {
	raw = strings.TrimSpace(raw)
	if !strings.Contains(raw, "://") {
		u, err := s.repo().URLByID(ctx, accountID, raw)
		if err != nil {
			return "", "", invalid("url_id", "no URL record has this id; pass the feed or site URL itself as url_id")
		}
		return u, raw, nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || len(raw) > 2048 {
		return "", "", invalid("url_id", "the URL must be an absolute http or https URL of at most 2048 characters")
	}
	u.Fragment = ""
	norm := u.String()
	id, err := s.repo().URLRecord(ctx, accountID, norm)
	return norm, id, err
}

func chunkOptions(src Source) chunk.Options {
	o := chunk.Options{Size: src.ChunkSize, Overlap: src.ChunkOverlap, Separators: src.ChunkSeparators, Regex: src.ChunkRegexSeparators}
	if src.ChunkLanguage != nil {
		o.Language = *src.ChunkLanguage
	}
	return o
}

// Source returns a source of the account.
func (s *Service) Source(ctx context.Context, accountID, id string) (Source, error) {
	return s.repo().Source(ctx, accountID, id)
}

// SourceExists reports whether the account has a live source id (the
// agents' definitions and the alerts' configurations name sources).
func (s *Service) SourceExists(ctx context.Context, accountID, id string) (bool, error) {
	return s.repo().SourceExists(ctx, accountID, id)
}

// Sources lists a page of the account's sources.
func (s *Service) Sources(ctx context.Context, accountID, sort string, desc bool, page, limit int) ([]Source, int, error) {
	return s.repo().Sources(ctx, accountID, sort, desc, paging.Offset(page, limit), limit)
}

// UpdateSource is a partial update.
type UpdateSource struct {
	Name         *string
	Polling      *string
	PollingSet   bool
	RetentionSet bool
	Retention    *int
	MediaTypes   *[]string
}

// UpdateSource applies a partial update. System-managed sources only take
// retention.
func (s *Service) UpdateSource(ctx context.Context, accountID, id string, in UpdateSource) (Source, error) {
	cur, err := s.repo().Source(ctx, accountID, id)
	if err != nil {
		return Source{}, err
	}
	if cur.SystemManaged && (in.Name != nil || in.PollingSet || in.MediaTypes != nil) {
		return Source{}, fmt.Errorf("%w: only retention_days can change on a system-managed source", ErrSystemManaged)
	}
	var p SourcePatch
	if in.Name != nil {
		n := strings.TrimSpace(*in.Name)
		if n == "" || len(n) > 255 {
			return Source{}, invalid("name", "a name of 1 to 255 characters is required")
		}
		p.Name = &n
	}
	if in.PollingSet {
		var poll *string
		interval := time.Duration(0)
		if in.Polling != nil {
			if interval, err = ParsePolling(*in.Polling); err != nil {
				return Source{}, invalid("polling", err.Error())
			}
			poll = in.Polling
		}
		p.Polling = &poll
		if cur.SourceType == TypeRSS || cur.SourceType == TypeWebsite {
			var next *time.Time
			if interval > 0 {
				base := s.now().UTC()
				if cur.PulledAt != nil {
					base = *cur.PulledAt
				}
				t := base.Add(interval)
				next = &t
			}
			p.NextPollAt = &next
		}
	}
	if in.RetentionSet {
		if in.Retention != nil && (*in.Retention <= 0 || *in.Retention > 36500) {
			return Source{}, invalid("retention_days", "retention_days is a number of days from 1 to 36500, or null for unlimited")
		}
		p.RetentionSet, p.Retention = true, in.Retention
	}
	if in.MediaTypes != nil {
		kept := []string{}
		for _, m := range *in.MediaTypes {
			if slices.Contains(mediaKinds, m) && !slices.Contains(kept, m) {
				kept = append(kept, m)
			}
		}
		p.MediaTypes = &kept
	}
	return s.repo().UpdateSource(ctx, accountID, id, p)
}

// DeleteSource soft-deletes a source and removes its contents, chunks and files.
func (s *Service) DeleteSource(ctx context.Context, accountID, id string) error {
	src, err := s.repo().Source(ctx, accountID, id)
	if err != nil {
		return err
	}
	if src.SystemManaged {
		return fmt.Errorf("%w: system-managed sources cannot be deleted", ErrSystemManaged)
	}
	if err := s.repo().DeleteSource(ctx, accountID, id); err != nil {
		return err
	}
	if err := s.purgeContents(context.WithoutCancel(ctx), accountID, id); err != nil {
		return err
	}
	if m, ok := s.index.(*memIndex); ok {
		m.Drop(id)
	}
	s.lex.Drop(id)
	return nil
}

// DeleteManagedSource deletes a system-managed source on behalf of the
// area that provisioned it (its owner has checked the caller may).
func (s *Service) DeleteManagedSource(ctx context.Context, accountID, id string) error {
	if _, err := s.repo().Source(ctx, accountID, id); err != nil {
		return err
	}
	if err := s.repo().DeleteSource(ctx, accountID, id); err != nil {
		return err
	}
	return s.purgeContents(context.WithoutCancel(ctx), accountID, id)
}

// purgeContents deletes every content of a source, in batches.
func (s *Service) purgeContents(ctx context.Context, accountID, sourceID string) error {
	for {
		ids, err := s.repo().SourceContentIDs(ctx, accountID, sourceID, 200)
		if err != nil || len(ids) == 0 {
			return err
		}
		for _, id := range ids {
			if err := s.deleteContent(ctx, accountID, id, true); err != nil && err != store.ErrNotFound {
				return err
			}
		}
	}
}
