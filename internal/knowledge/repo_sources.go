package knowledge

// The sources' SQL: sources (knowledge sources, the API's source
// connections) and source_urls are the area's own. The solutions area
// still names sources in its own queries (a solution's linked sources,
// counted and listed with the solution), and the account search
// (internal/search) in its query across every area's tables.

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/agentry/agentry/internal/store"
)

// Source is a knowledge source: a content store (custom_index) fed by
// uploads, an RSS feed, or a web site.
type Source struct {
	ID, AccountID, Name, SourceType string
	URLID, URL                      *string
	IndexMode                       *string
	ChunkSize, ChunkOverlap         int
	ChunkSeparators                 []string // nil: the defaults
	ChunkRegexSeparators            bool
	ChunkLanguage                   *string
	EmbeddingModel                  string
	Dimensions                      int
	ContentFilter                   string
	MediaTypes                      []string
	Polling, PollingAction          *string
	PollingMaxItems                 *int
	Retention                       *int
	SystemManaged, Readonly         bool
	PulledAt, NextPollAt            *time.Time
	PollState                       map[string]string
	CreatedAt, UpdatedAt            time.Time
	ContentCount                    int
}

const sourceColumns = `s.id, s.account_id, s.name, s.source_type, s.url_id, s.url, s.index_mode, s.chunk_size, s.chunk_overlap,
	s.chunk_separators, s.chunk_regex_separators, s.chunk_language, s.embedding_model, s.dimensions, s.content_filter,
	s.media_types, s.polling, s.polling_action, s.polling_max_items, s.retention, s.system_managed, s.readonly,
	s.pulled_at, s.next_poll_at, s.poll_state, s.created_at, s.updated_at,
	(SELECT COUNT(*) FROM contents c WHERE c.source_id = s.id)`

func scanSource(r store.Scanner) (Source, error) {
	var (
		s                      Source
		seps, media, state     sql.NullString
		pulled, next           sql.NullTime
		maxItems, retention    sql.NullInt64
		urlID, url, mode, lang sql.NullString
		polling, pollingAction sql.NullString
	)
	err := r.Scan(&s.ID, &s.AccountID, &s.Name, &s.SourceType, &urlID, &url, &mode, &s.ChunkSize, &s.ChunkOverlap,
		&seps, &s.ChunkRegexSeparators, &lang, &s.EmbeddingModel, &s.Dimensions, &s.ContentFilter,
		&media, &polling, &pollingAction, &maxItems, &retention, &s.SystemManaged, &s.Readonly,
		&pulled, &next, &state, &s.CreatedAt, &s.UpdatedAt, &s.ContentCount)
	if err != nil {
		return Source{}, err
	}
	s.URLID, s.URL, s.IndexMode, s.ChunkLanguage = store.StringOrNil(urlID), store.StringOrNil(url), store.StringOrNil(mode), store.StringOrNil(lang)
	s.Polling, s.PollingAction = store.StringOrNil(polling), store.StringOrNil(pollingAction)
	s.PollingMaxItems, s.Retention = store.IntOrNil(maxItems), store.IntOrNil(retention)
	s.PulledAt, s.NextPollAt = store.TimeOrNil(pulled), store.TimeOrNil(next)
	if seps.Valid {
		_ = json.Unmarshal([]byte(seps.String), &s.ChunkSeparators)
	}
	s.MediaTypes = []string{}
	_ = json.Unmarshal([]byte(media.String), &s.MediaTypes)
	s.PollState = map[string]string{}
	_ = json.Unmarshal([]byte(state.String), &s.PollState)
	s.CreatedAt, s.UpdatedAt = s.CreatedAt.UTC(), s.UpdatedAt.UTC()
	return s, nil
}

func optJSON[T any](v []T) any {
	if v == nil {
		return nil
	}
	return jsonText(v)
}

// URLRecord returns the account's URL record for url, creating it when new.
func (r repo) URLRecord(ctx context.Context, accountID, url string) (id string, err error) {
	err = r.db.R.QueryRowContext(ctx, `SELECT id FROM source_urls WHERE account_id = $1 AND url = $2`, accountID, url).Scan(&id)
	if err == nil || !errors.Is(err, sql.ErrNoRows) {
		return id, err
	}
	id = store.NewID()
	_, err = r.db.W.ExecContext(ctx, `INSERT INTO source_urls (id, account_id, url, created_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (account_id, url) DO NOTHING`, id, accountID, url, store.Now())
	if err != nil {
		return "", err
	}
	err = r.db.W.QueryRowContext(ctx, `SELECT id FROM source_urls WHERE account_id = $1 AND url = $2`, accountID, url).Scan(&id)
	return id, err
}

// URLByID returns the URL a record of the account names, or ErrNotFound.
func (r repo) URLByID(ctx context.Context, accountID, id string) (string, error) {
	return store.One(ctx, r.db.R, store.ScanString, `SELECT url FROM source_urls WHERE account_id = $1 AND id = $2`, accountID, id)
}

// CreateSource inserts s (its ID, times set here).
func (r repo) CreateSource(ctx context.Context, s Source) (Source, error) {
	s.ID, s.CreatedAt = store.NewID(), store.Now()
	s.UpdatedAt = s.CreatedAt
	if s.MediaTypes == nil {
		s.MediaTypes = []string{}
	}
	if s.PollState == nil {
		s.PollState = map[string]string{}
	}
	_, err := r.db.W.ExecContext(ctx, `INSERT INTO sources (id, account_id, name, source_type, url_id, url, index_mode,
		chunk_size, chunk_overlap, chunk_separators, chunk_regex_separators, chunk_language, embedding_model, dimensions,
		content_filter, media_types, polling, polling_action, polling_max_items, retention, system_managed, readonly,
		pulled_at, next_poll_at, poll_state, created_at, updated_at)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21,$22,$23,$24,$25,$26,$26)`,
		s.ID, s.AccountID, s.Name, s.SourceType, s.URLID, s.URL, s.IndexMode, s.ChunkSize, s.ChunkOverlap,
		optJSON(s.ChunkSeparators), s.ChunkRegexSeparators, s.ChunkLanguage, s.EmbeddingModel, s.Dimensions,
		s.ContentFilter, jsonText(s.MediaTypes), s.Polling, s.PollingAction, s.PollingMaxItems, s.Retention,
		s.SystemManaged, s.Readonly, s.PulledAt, s.NextPollAt, jsonText(s.PollState), s.CreatedAt)
	return s, err
}

// Source returns a live source of the account, or ErrNotFound.
func (r repo) Source(ctx context.Context, accountID, id string) (Source, error) {
	return store.One(ctx, r.db.R, scanSource, `SELECT `+sourceColumns+` FROM sources s
		WHERE s.account_id = $1 AND s.id = $2 AND s.deleted_at IS NULL`, accountID, id)
}

// SourceExists reports whether the account has a live source id.
func (r repo) SourceExists(ctx context.Context, accountID, id string) (bool, error) {
	var n int
	err := r.db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM sources WHERE account_id = $1 AND id = $2 AND deleted_at IS NULL`, accountID, id).Scan(&n)
	return n > 0, err
}

// sourceSorts are the columns sources sort by.
var sourceSorts = map[string]string{"created_at": "s.created_at", "updated_at": "s.updated_at", "name": "s.name"}

// Sources lists a page of the account's live sources and their total.
func (r repo) Sources(ctx context.Context, accountID, sort string, desc bool, offset, limit int) ([]Source, int, error) {
	col, ok := sourceSorts[sort]
	if !ok {
		col = "s.created_at"
	}
	dir := " ASC"
	if desc {
		dir = " DESC"
	}
	var total int
	if err := r.db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM sources WHERE account_id = $1 AND deleted_at IS NULL`, accountID).Scan(&total); err != nil {
		return nil, 0, err
	}
	out, err := store.All(ctx, r.db.R, scanSource, `SELECT `+sourceColumns+` FROM sources s WHERE s.account_id = $1 AND s.deleted_at IS NULL
		ORDER BY `+col+dir+`, s.id`+dir+` LIMIT $2 OFFSET $3`, accountID, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	return out, total, nil
}

// SourcePatch lists the fields an update changes (nil: unchanged).
type SourcePatch struct {
	Name         *string
	Polling      **string
	RetentionSet bool
	Retention    *int
	MediaTypes   *[]string
	NextPollAt   **time.Time
}

// UpdateSource applies p to a live source of the account.
func (r repo) UpdateSource(ctx context.Context, accountID, id string, p SourcePatch) (Source, error) {
	sets, args := []string{"updated_at = $1"}, []any{store.Now()}
	add := func(col string, v any) {
		args = append(args, v)
		sets = append(sets, col+" = $"+strconv.Itoa(len(args)))
	}
	if p.Name != nil {
		add("name", *p.Name)
	}
	if p.Polling != nil {
		add("polling", *p.Polling)
	}
	if p.RetentionSet {
		add("retention", p.Retention)
	}
	if p.MediaTypes != nil {
		add("media_types", jsonText(*p.MediaTypes))
	}
	if p.NextPollAt != nil {
		add("next_poll_at", *p.NextPollAt)
	}
	args = append(args, accountID, id)
	if err := store.Affected(ctx, r.db.W, `UPDATE sources SET `+strings.Join(sets, ", ")+` WHERE account_id = $`+strconv.Itoa(len(args)-1)+
		` AND id = $`+strconv.Itoa(len(args))+` AND deleted_at IS NULL`, args...); err != nil {
		return Source{}, err
	}
	return r.Source(ctx, accountID, id)
}

// DeleteSource soft-deletes a live source of the account and unlinks it
// from knowledge bases; its contents and chunks are removed by the
// service's purge (which also drops them from the search index).
func (r repo) DeleteSource(ctx context.Context, accountID, id string) error {
	return r.db.Tx(ctx, func(tx *sql.Tx) error {
		if err := store.Affected(ctx, tx, `UPDATE sources SET deleted_at = $1, next_poll_at = NULL WHERE account_id = $2 AND id = $3 AND deleted_at IS NULL`,
			store.Now(), accountID, id); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM knowledge_base_sources WHERE source_id = $1`, id)
		return err
	})
}

// SetPollState records a poll's outcome: when it pulled, its validators,
// and when it polls next.
func (r repo) SetPollState(ctx context.Context, accountID, id string, pulled time.Time, state map[string]string, next *time.Time) error {
	_, err := r.db.W.ExecContext(ctx, `UPDATE sources SET pulled_at = $1, poll_state = $2, next_poll_at = $3
		WHERE account_id = $4 AND id = $5 AND deleted_at IS NULL`, pulled, jsonText(state), next, accountID, id)
	return err
}

// DueSource is a source whose poll is due.
type DueSource struct {
	AccountID, ID string
	NextPollAt    time.Time
}

// DueSources lists up to limit sources whose next poll is at or before now.
func (r repo) DueSources(ctx context.Context, now time.Time, limit int) ([]DueSource, error) {
	return store.All(ctx, r.db.R, func(row store.Scanner) (DueSource, error) {
		var d DueSource
		err := row.Scan(&d.AccountID, &d.ID, &d.NextPollAt)
		return d, err
	}, `SELECT account_id, id, next_poll_at FROM sources
		WHERE deleted_at IS NULL AND next_poll_at IS NOT NULL AND next_poll_at <= $1 ORDER BY next_poll_at LIMIT $2`, now, limit)
}

// ClaimSourcePoll moves a due source's next poll from was to next, and
// reports whether this caller won it: of replicas racing for one poll, one
// does.
func (r repo) ClaimSourcePoll(ctx context.Context, id string, was, next time.Time) (bool, error) {
	return changed(r.db.W.ExecContext(ctx, `UPDATE sources SET next_poll_at = $1 WHERE id = $2 AND next_poll_at = $3 AND deleted_at IS NULL`, next, id, was))
}

// RetainedSource is a source with a retention period.
type RetainedSource struct {
	AccountID, ID string
	Days          int
}

// SourcesWithRetention lists live sources that keep content for a limited time.
func (r repo) SourcesWithRetention(ctx context.Context) ([]RetainedSource, error) {
	return store.All(ctx, r.db.R, func(row store.Scanner) (RetainedSource, error) {
		var s RetainedSource
		err := row.Scan(&s.AccountID, &s.ID, &s.Days)
		return s, err
	}, `SELECT account_id, id, retention FROM sources WHERE deleted_at IS NULL AND retention IS NOT NULL AND retention > 0`)
}

// LiveSource is the repository's Source on db, for the area's exports
// (internal/knowledge/exports), which check the source of an export.
func LiveSource(ctx context.Context, db *store.DB, accountID, id string) (Source, error) {
	return repo{db}.Source(ctx, accountID, id)
}
