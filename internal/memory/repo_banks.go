package memory

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/agentry/agentry/internal/store"
)

// The memory area keeps its own persistence (issue 31's vertical slices):
// memory_banks, memory_entries, the stats totals kept beside them
// (memory_stat_tokens, memory_stat_keys, memory_stat_labels) and the
// assistant's turns (memory_assistant_conversations) are read and written
// only here. The store lends its pools, transactions and scan helpers.
type repo struct{ db *store.DB }

// MemoryBank is a memory bank's settings.
type MemoryBank struct {
	ID, AccountID, Name, Type, Mode string
	Description, EmbeddingModel     *string
	Dimensions, ChunkSize           *int
	ChunkOverlap, RetentionDays     *int
	MaxTurns, MaxSizeTokens         *int
	MaxAgeDays                      *int
	CompactionPrompt, SourceID      *string
	CreatedAt, UpdatedAt            time.Time
}

// HasThreshold reports whether any compaction threshold is set.
func (b MemoryBank) HasThreshold() bool {
	return pos(b.MaxTurns) || pos(b.MaxSizeTokens) || pos(b.MaxAgeDays)
}

func pos(p *int) bool { return p != nil && *p > 0 }

const memoryBankColumns = `id, account_id, name, description, bank_type, mode, embedding_model, dimensions, chunk_size, chunk_overlap,
	retention_days, max_turns, max_size_tokens, max_age_days, compaction_prompt, source_connection_id, created_at, updated_at`

func scanMemoryBank(r store.Scanner) (MemoryBank, error) {
	var (
		b                                     MemoryBank
		desc, model, prompt, src              sql.NullString
		dims, size, overlap, ret, turns, toks sql.NullInt64
		age                                   sql.NullInt64
	)
	err := r.Scan(&b.ID, &b.AccountID, &b.Name, &desc, &b.Type, &b.Mode, &model, &dims, &size, &overlap,
		&ret, &turns, &toks, &age, &prompt, &src, &b.CreatedAt, &b.UpdatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return b, store.ErrNotFound
	}
	b.Description, b.EmbeddingModel, b.CompactionPrompt, b.SourceID = store.StringOrNil(desc), store.StringOrNil(model), store.StringOrNil(prompt), store.StringOrNil(src)
	b.Dimensions, b.ChunkSize, b.ChunkOverlap, b.RetentionDays = store.IntOrNil(dims), store.IntOrNil(size), store.IntOrNil(overlap), store.IntOrNil(ret)
	b.MaxTurns, b.MaxSizeTokens, b.MaxAgeDays = store.IntOrNil(turns), store.IntOrNil(toks), store.IntOrNil(age)
	b.CreatedAt, b.UpdatedAt = b.CreatedAt.UTC(), b.UpdatedAt.UTC()
	return b, err
}

// CreateMemoryBank inserts b (its id and times are set here).
func (r repo) CreateMemoryBank(ctx context.Context, b MemoryBank) (MemoryBank, error) {
	b.ID, b.CreatedAt = store.NewID(), store.Now()
	b.UpdatedAt = b.CreatedAt
	_, err := r.db.W.ExecContext(ctx, `INSERT INTO memory_banks (`+memoryBankColumns+`) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$17)`,
		b.ID, b.AccountID, b.Name, b.Description, b.Type, b.Mode, b.EmbeddingModel, b.Dimensions, b.ChunkSize, b.ChunkOverlap,
		b.RetentionDays, b.MaxTurns, b.MaxSizeTokens, b.MaxAgeDays, b.CompactionPrompt, b.SourceID, b.CreatedAt)
	if err != nil {
		return MemoryBank{}, err
	}
	return r.MemoryBank(ctx, b.AccountID, b.ID)
}

// MemoryBank returns a live memory bank of the account, or store.ErrNotFound.
func (r repo) MemoryBank(ctx context.Context, accountID, id string) (MemoryBank, error) {
	st, err := r.db.Prepared(ctx, `SELECT `+memoryBankColumns+` FROM memory_banks WHERE account_id = $1 AND id = $2 AND deleted_at IS NULL`)
	if err != nil {
		return MemoryBank{}, err
	}
	return scanMemoryBank(st.QueryRowContext(ctx, accountID, id))
}

var memoryBankSorts = map[string]string{"created_at": "created_at", "updated_at": "updated_at", "name": "name"}

// MemoryBanks lists a page of the account's live banks (of one type when
// bankType is set) and their total.
func (r repo) MemoryBanks(ctx context.Context, accountID, bankType, sort string, desc bool, offset, limit int) ([]MemoryBank, int, error) {
	col, ok := memoryBankSorts[sort]
	if !ok {
		col = "created_at"
	}
	dir := " ASC"
	if desc {
		dir = " DESC"
	}
	where, args := `account_id = $1 AND deleted_at IS NULL`, []any{accountID}
	if bankType != "" {
		where += ` AND bank_type = $2`
		args = append(args, bankType)
	}
	var total int
	if err := r.db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM memory_banks WHERE `+where, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	n := len(args)
	out, err := store.All(ctx, r.db.R, scanMemoryBank, `SELECT `+memoryBankColumns+` FROM memory_banks WHERE `+where+`
		ORDER BY `+col+dir+`, id`+dir+` LIMIT $`+strconv.Itoa(n+1)+` OFFSET $`+strconv.Itoa(n+2), append(args, limit, offset)...)
	return out, total, err
}

// BankPatch lists what an update changes: nil leaves a field; an
// empty string or a zero clears it (sets NULL).
type BankPatch struct {
	Name, Description, CompactionPrompt    *string
	RetentionDays, MaxTurns, MaxSizeTokens *int
	MaxAgeDays                             *int
	SourceID                               *string // "" clears
}

// UpdateMemoryBank applies p to a live bank of the account.
func (r repo) UpdateMemoryBank(ctx context.Context, accountID, id string, p BankPatch) (MemoryBank, error) {
	sets, args := []string{"updated_at = $1"}, []any{store.Now()}
	add := func(col string, v any) {
		args = append(args, v)
		sets = append(sets, col+" = $"+strconv.Itoa(len(args)))
	}
	str := func(col string, v *string, clearEmpty bool) {
		if v == nil {
			return
		}
		if clearEmpty && *v == "" {
			add(col, nil)
		} else {
			add(col, *v)
		}
	}
	num := func(col string, v *int) {
		if v == nil {
			return
		}
		if *v == 0 {
			add(col, nil)
		} else {
			add(col, *v)
		}
	}
	str("name", p.Name, false)
	str("description", p.Description, true)
	str("compaction_prompt", p.CompactionPrompt, true)
	str("source_connection_id", p.SourceID, true)
	num("retention_days", p.RetentionDays)
	num("max_turns", p.MaxTurns)
	num("max_size_tokens", p.MaxSizeTokens)
	num("max_age_days", p.MaxAgeDays)
	args = append(args, accountID, id)
	res, err := r.db.W.ExecContext(ctx, `UPDATE memory_banks SET `+strings.Join(sets, ", ")+` WHERE account_id = $`+strconv.Itoa(len(args)-1)+
		` AND id = $`+strconv.Itoa(len(args))+` AND deleted_at IS NULL`, args...)
	if err != nil {
		return MemoryBank{}, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return MemoryBank{}, store.ErrNotFound
	}
	return r.MemoryBank(ctx, accountID, id)
}

// DeleteMemoryBank soft-deletes a bank and hard-deletes its entries and
// stat totals.
func (r repo) DeleteMemoryBank(ctx context.Context, accountID, id string) error {
	return r.db.Tx(ctx, func(tx *sql.Tx) error {
		// Locking the bank's row first waits for the inserts under way
		// (each holds a key-share lock on it, from its foreign key) and
		// makes later ones wait: none lands between the two deletes
		// below, counted in totals that are gone or missing from them.
		var one int
		err := tx.QueryRowContext(ctx, `SELECT 1 FROM memory_banks WHERE account_id = $1 AND id = $2 AND deleted_at IS NULL`+r.db.LockFor("UPDATE"),
			accountID, id).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return store.ErrNotFound
		}
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE memory_banks SET deleted_at = $1 WHERE id = $2`, store.Now(), id); err != nil {
			return err
		}
		if err := dropMemoryStats(ctx, tx, id); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM memory_entries WHERE account_id = $1 AND bank_id = $2`, accountID, id)
		return err
	})
}

// ClearMemoryBankSource unlinks a bank's source and deletes its entries,
// in one transaction; it returns the source id that was linked ("" when
// none).
func (r repo) ClearMemoryBankSource(ctx context.Context, accountID, id string) (string, error) {
	var src sql.NullString
	err := r.db.Tx(ctx, func(tx *sql.Tx) error {
		// The bank's row lock orders this against a compaction of the
		// bank (ReplaceMemoryEntries): a summary committed while the
		// entries were being deleted would otherwise outlive the reset.
		err := tx.QueryRowContext(ctx, `SELECT source_connection_id FROM memory_banks WHERE account_id = $1 AND id = $2 AND deleted_at IS NULL`+
			r.db.LockFor("UPDATE"), accountID, id).Scan(&src)
		if errors.Is(err, sql.ErrNoRows) {
			return store.ErrNotFound
		}
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE memory_banks SET source_connection_id = NULL, updated_at = $1 WHERE id = $2`, store.Now(), id); err != nil {
			return err
		}
		// (The row lock also waits for inserts under way, which hold a
		// key-share lock on it from their foreign key, so each insert
		// is either counted and deleted here or comes after.)
		if err := dropMemoryStats(ctx, tx, id); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM memory_entries WHERE account_id = $1 AND bank_id = $2`, accountID, id)
		return err
	})
	return src.String, err
}

// SetMemoryBankSourceIfUnset links src to a bank that has no source yet,
// and returns the bank's source afterwards (src, or the one another writer
// linked first).
func (r repo) SetMemoryBankSourceIfUnset(ctx context.Context, accountID, id, src string) (string, error) {
	if _, err := r.db.W.ExecContext(ctx, `UPDATE memory_banks SET source_connection_id = $1 WHERE account_id = $2 AND id = $3 AND source_connection_id IS NULL`,
		src, accountID, id); err != nil {
		return "", err
	}
	var cur sql.NullString
	err := r.db.W.QueryRowContext(ctx, `SELECT source_connection_id FROM memory_banks WHERE account_id = $1 AND id = $2`, accountID, id).Scan(&cur)
	if errors.Is(err, sql.ErrNoRows) {
		return "", store.ErrNotFound
	}
	return cur.String, err
}

// MemoryBanksWithThresholds lists every live bank (all accounts) with a
// compaction threshold or a retention period, for the background sweep.
func (r repo) MemoryBanksWithThresholds(ctx context.Context) ([]MemoryBank, error) {
	rows, err := r.db.R.QueryContext(ctx, `SELECT `+memoryBankColumns+` FROM memory_banks WHERE deleted_at IS NULL
		AND (max_turns IS NOT NULL OR max_size_tokens IS NOT NULL OR max_age_days IS NOT NULL OR retention_days IS NOT NULL) ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []MemoryBank
	for rows.Next() {
		b, err := scanMemoryBank(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

// BankSearch is how the account search (internal/search) finds memory
// banks: by name and description, deleted ones left out.
var BankSearch = store.SearchTable{Table: "memory_banks", NameExpr: "name", DescExpr: "description", Where: "deleted_at IS NULL"}
