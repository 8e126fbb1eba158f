package knowledge

// The knowledge bases' SQL: knowledge_bases and knowledge_base_sources
// are the area's own. The solutions area still names knowledge_bases in
// its own queries (a solution's linked knowledge bases, counted and
// listed with the solution), and the account search (internal/search) in
// its query across every area's tables.

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/agentry/agentry/internal/store"
)

// KnowledgeBase groups sources for retrieval.
type KnowledgeBase struct {
	ID, AccountID, Name      string
	Description              *string
	DefaultTopN, DefaultTopK *int
	DefaultScoreThreshold    *float64
	RerankerModel            *string
	// SearchSettings is the JSON object of the search settings set
	// explicitly (see settings.go for its shape); empty when none are.
	SearchSettings       string
	Readonly             bool
	SourceIDs            []string
	CreatedAt, UpdatedAt time.Time
}

const kbColumns = `id, account_id, name, description, default_top_n, default_top_k, default_score_threshold, reranker_model, readonly, created_at, updated_at, search_settings`

func scanKB(r store.Scanner) (KnowledgeBase, error) {
	var (
		k          KnowledgeBase
		desc, rr   sql.NullString
		settings   sql.NullString
		topN, topK sql.NullInt64
		thr        sql.NullFloat64
	)
	err := r.Scan(&k.ID, &k.AccountID, &k.Name, &desc, &topN, &topK, &thr, &rr, &k.Readonly, &k.CreatedAt, &k.UpdatedAt, &settings)
	k.Description, k.RerankerModel = store.StringOrNil(desc), store.StringOrNil(rr)
	k.SearchSettings = settings.String
	k.DefaultTopN, k.DefaultTopK = store.IntOrNil(topN), store.IntOrNil(topK)
	if thr.Valid {
		k.DefaultScoreThreshold = &thr.Float64
	}
	k.CreatedAt, k.UpdatedAt = k.CreatedAt.UTC(), k.UpdatedAt.UTC()
	return k, err
}

// errSourceNotFound means a knowledge base names a source the account does not have.
var errSourceNotFound = errors.New("source not found")

func setKBSources(ctx context.Context, tx *sql.Tx, accountID, kbID string, ids []string) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM knowledge_base_sources WHERE knowledge_base_id = $1`, kbID); err != nil {
		return err
	}
	for i, id := range ids {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM sources WHERE account_id = $1 AND id = $2 AND deleted_at IS NULL`, accountID, id).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return errSourceNotFound
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO knowledge_base_sources (knowledge_base_id, source_id, position) VALUES ($1, $2, $3)
			ON CONFLICT DO NOTHING`, kbID, id, i); err != nil {
			return err
		}
	}
	return nil
}

// CreateKnowledgeBase inserts k with its sources (which must be the account's).
func (r repo) CreateKnowledgeBase(ctx context.Context, k KnowledgeBase) (KnowledgeBase, error) {
	k.ID, k.CreatedAt = store.NewID(), store.Now()
	k.UpdatedAt = k.CreatedAt
	err := r.db.Tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO knowledge_bases (`+kbColumns+`) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$10,$11)`,
			k.ID, k.AccountID, k.Name, k.Description, k.DefaultTopN, k.DefaultTopK, k.DefaultScoreThreshold, k.RerankerModel, k.Readonly, k.CreatedAt,
			store.NullIfEmpty(k.SearchSettings)); err != nil {
			return err
		}
		return setKBSources(ctx, tx, k.AccountID, k.ID, k.SourceIDs)
	})
	if err != nil {
		return KnowledgeBase{}, err
	}
	return r.KnowledgeBase(ctx, k.AccountID, k.ID)
}

// kbSourcesOf returns the live sources of several knowledge bases, each in
// its order, in one query (a list of knowledge bases does not ask once per
// base). Every id is in the map, with an empty list when it has none.
func (r repo) kbSourcesOf(ctx context.Context, kbIDs []string) (map[string][]string, error) {
	out := make(map[string][]string, len(kbIDs))
	if len(kbIDs) == 0 {
		return out, nil
	}
	args := make([]any, len(kbIDs))
	for i, id := range kbIDs {
		out[id] = []string{}
		args[i] = id
	}
	type link struct{ kb, src string }
	links, err := store.All(ctx, r.db.R, func(row store.Scanner) (link, error) {
		var l link
		err := row.Scan(&l.kb, &l.src)
		return l, err
	}, `SELECT ks.knowledge_base_id, ks.source_id FROM knowledge_base_sources ks JOIN sources s ON s.id = ks.source_id
		WHERE ks.knowledge_base_id IN (`+store.Placeholders(1, len(kbIDs))+`) AND s.deleted_at IS NULL ORDER BY ks.knowledge_base_id, ks.position`, args...)
	if err != nil {
		return nil, err
	}
	for _, l := range links {
		out[l.kb] = append(out[l.kb], l.src)
	}
	return out, nil
}

// KnowledgeBase returns a live knowledge base of the account, or ErrNotFound.
func (r repo) KnowledgeBase(ctx context.Context, accountID, id string) (KnowledgeBase, error) {
	k, err := store.One(ctx, r.db.R, scanKB, `SELECT `+kbColumns+` FROM knowledge_bases WHERE account_id = $1 AND id = $2 AND deleted_at IS NULL`, accountID, id)
	if err != nil {
		return k, err
	}
	k.SourceIDs, err = store.All(ctx, r.db.R, store.ScanString, `SELECT ks.source_id FROM knowledge_base_sources ks JOIN sources s ON s.id = ks.source_id
		WHERE ks.knowledge_base_id = $1 AND s.deleted_at IS NULL ORDER BY ks.position`, k.ID)
	return k, err
}

var kbSorts = map[string]string{"created_at": "created_at", "updated_at": "updated_at", "name": "name"}

// KnowledgeBases lists a page of the account's live knowledge bases and their total.
func (r repo) KnowledgeBases(ctx context.Context, accountID, sort string, desc bool, offset, limit int) ([]KnowledgeBase, int, error) {
	col, ok := kbSorts[sort]
	if !ok {
		col = "created_at"
	}
	dir := " ASC"
	if desc {
		dir = " DESC"
	}
	var total int
	if err := r.db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM knowledge_bases WHERE account_id = $1 AND deleted_at IS NULL`, accountID).Scan(&total); err != nil {
		return nil, 0, err
	}
	out, err := store.All(ctx, r.db.R, scanKB, `SELECT `+kbColumns+` FROM knowledge_bases WHERE account_id = $1 AND deleted_at IS NULL
		ORDER BY `+col+dir+`, id`+dir+` LIMIT $2 OFFSET $3`, accountID, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	ids := make([]string, len(out))
	for i := range out {
		ids[i] = out[i].ID
	}
	sources, err := r.kbSourcesOf(ctx, ids)
	if err != nil {
		return nil, 0, err
	}
	for i := range out {
		out[i].SourceIDs = sources[out[i].ID]
	}
	return out, total, nil
}

// KnowledgeBasePatch lists what an update changes; nil leaves a field, and
// the Clear flags set it to NULL.
type KnowledgeBasePatch struct {
	Name, Description, RerankerModel *string
	ClearReranker                    bool
	TopN, TopK                       *int     // 0 clears
	Threshold                        *float64 // negative clears
	SourceIDs                        *[]string
	SearchSettings                   *string // "" clears
}

// UpdateKnowledgeBase applies p to a live knowledge base of the account.
func (r repo) UpdateKnowledgeBase(ctx context.Context, accountID, id string, p KnowledgeBasePatch) (KnowledgeBase, error) {
	err := r.db.Tx(ctx, func(tx *sql.Tx) error {
		sets, args := []string{"updated_at = $1"}, []any{store.Now()}
		add := func(col string, v any) {
			args = append(args, v)
			sets = append(sets, col+" = $"+strconv.Itoa(len(args)))
		}
		if p.Name != nil {
			add("name", *p.Name)
		}
		if p.Description != nil {
			add("description", *p.Description)
		}
		if p.ClearReranker {
			add("reranker_model", nil)
		} else if p.RerankerModel != nil {
			add("reranker_model", *p.RerankerModel)
		}
		clearZero := func(col string, v *int) {
			if v == nil {
				return
			}
			if *v == 0 {
				add(col, nil)
			} else {
				add(col, *v)
			}
		}
		if p.SearchSettings != nil {
			add("search_settings", store.NullIfEmpty(*p.SearchSettings))
		}
		clearZero("default_top_n", p.TopN)
		clearZero("default_top_k", p.TopK)
		if p.Threshold != nil {
			if *p.Threshold < 0 {
				add("default_score_threshold", nil)
			} else {
				add("default_score_threshold", *p.Threshold)
			}
		}
		args = append(args, accountID, id)
		if err := store.Affected(ctx, tx, `UPDATE knowledge_bases SET `+strings.Join(sets, ", ")+` WHERE account_id = $`+strconv.Itoa(len(args)-1)+
			` AND id = $`+strconv.Itoa(len(args))+` AND deleted_at IS NULL`, args...); err != nil {
			return err
		}
		if p.SourceIDs != nil {
			return setKBSources(ctx, tx, accountID, id, *p.SourceIDs)
		}
		return nil
	})
	if err != nil {
		return KnowledgeBase{}, err
	}
	return r.KnowledgeBase(ctx, accountID, id)
}

// DeleteKnowledgeBase soft-deletes a live knowledge base of the account.
func (r repo) DeleteKnowledgeBase(ctx context.Context, accountID, id string) error {
	return store.Affected(ctx, r.db.W, `UPDATE knowledge_bases SET deleted_at = $1 WHERE account_id = $2 AND id = $3 AND deleted_at IS NULL`, store.Now(), accountID, id)
}

// KnowledgeBaseExists reports whether the account has a live knowledge base id.
func (r repo) KnowledgeBaseExists(ctx context.Context, accountID, id string) (bool, error) {
	var n int
	err := r.db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM knowledge_bases WHERE account_id = $1 AND id = $2 AND deleted_at IS NULL`, accountID, id).Scan(&n)
	return n > 0, err
}

// LatestKnowledgeBase returns the id of the account's newest live knowledge base.
func (r repo) LatestKnowledgeBase(ctx context.Context, accountID string) (string, error) {
	return store.One(ctx, r.db.R, store.ScanString, `SELECT id FROM knowledge_bases WHERE account_id = $1 AND deleted_at IS NULL ORDER BY created_at DESC, id DESC LIMIT 1`, accountID)
}

// The solutions area is built without the knowledge service and reads a
// solution's linked knowledge bases in its own repository, on the store
// it holds; these two lend it the knowledge bases' SQL.

// KnowledgeBaseSources returns the live sources of several knowledge
// bases of db, each in its order, every id in the map.
func KnowledgeBaseSources(ctx context.Context, db *store.DB, kbIDs []string) (map[string][]string, error) {
	return repo{db}.kbSourcesOf(ctx, kbIDs)
}

// LatestKnowledgeBase returns the id of the account's newest live
// knowledge base on db, or ErrNotFound.
func LatestKnowledgeBase(ctx context.Context, db *store.DB, accountID string) (string, error) {
	return repo{db}.LatestKnowledgeBase(ctx, accountID)
}
