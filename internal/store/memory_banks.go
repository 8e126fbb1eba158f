package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"
)

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

func scanMemoryBank(r rowScanner) (MemoryBank, error) {
	var (
		b                                     MemoryBank
		desc, model, prompt, src              sql.NullString
		dims, size, overlap, ret, turns, toks sql.NullInt64
		age                                   sql.NullInt64
	)
	err := r.Scan(&b.ID, &b.AccountID, &b.Name, &desc, &b.Type, &b.Mode, &model, &dims, &size, &overlap,
		&ret, &turns, &toks, &age, &prompt, &src, &b.CreatedAt, &b.UpdatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return b, ErrNotFound
	}
	b.Description, b.EmbeddingModel, b.CompactionPrompt, b.SourceID = StringOrNil(desc), StringOrNil(model), StringOrNil(prompt), StringOrNil(src)
	b.Dimensions, b.ChunkSize, b.ChunkOverlap, b.RetentionDays = nullInt(dims), nullInt(size), nullInt(overlap), nullInt(ret)
	b.MaxTurns, b.MaxSizeTokens, b.MaxAgeDays = nullInt(turns), nullInt(toks), nullInt(age)
	b.CreatedAt, b.UpdatedAt = b.CreatedAt.UTC(), b.UpdatedAt.UTC()
	return b, err
}

// CreateMemoryBank inserts b (its id and times are set here).
func (db *DB) CreateMemoryBank(ctx context.Context, b MemoryBank) (MemoryBank, error) {
	b.ID, b.CreatedAt = NewID(), Now()
	b.UpdatedAt = b.CreatedAt
	_, err := db.W.ExecContext(ctx, `INSERT INTO memory_banks (`+memoryBankColumns+`) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$17)`,
		b.ID, b.AccountID, b.Name, b.Description, b.Type, b.Mode, b.EmbeddingModel, b.Dimensions, b.ChunkSize, b.ChunkOverlap,
		b.RetentionDays, b.MaxTurns, b.MaxSizeTokens, b.MaxAgeDays, b.CompactionPrompt, b.SourceID, b.CreatedAt)
	if err != nil {
		return MemoryBank{}, err
	}
	return db.MemoryBank(ctx, b.AccountID, b.ID)
}

// MemoryBank returns a live memory bank of the account, or ErrNotFound.
func (db *DB) MemoryBank(ctx context.Context, accountID, id string) (MemoryBank, error) {
	st, err := db.prepared(ctx, `SELECT `+memoryBankColumns+` FROM memory_banks WHERE account_id = $1 AND id = $2 AND deleted_at IS NULL`)
	if err != nil {
		return MemoryBank{}, err
	}
	return scanMemoryBank(st.QueryRowContext(ctx, accountID, id))
}

var memoryBankSorts = map[string]string{"created_at": "created_at", "updated_at": "updated_at", "name": "name"}

// MemoryBanks lists a page of the account's live banks (of one type when
// bankType is set) and their total.
func (db *DB) MemoryBanks(ctx context.Context, accountID, bankType, sort string, desc bool, offset, limit int) ([]MemoryBank, int, error) {
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
	if err := db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM memory_banks WHERE `+where, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	n := len(args)
	rows, err := db.R.QueryContext(ctx, `SELECT `+memoryBankColumns+` FROM memory_banks WHERE `+where+`
		ORDER BY `+col+dir+`, id`+dir+` LIMIT $`+itoa(n+1)+` OFFSET $`+itoa(n+2), append(args, limit, offset)...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []MemoryBank{}
	for rows.Next() {
		b, err := scanMemoryBank(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, b)
	}
	return out, total, rows.Err()
}

// MemoryBanksByText returns up to limit live banks of the account whose
// name or description contains q (case-insensitive), newest first: what
// account-wide search needs from this area.
func (db *DB) MemoryBanksByText(ctx context.Context, accountID, q string, limit int) ([]MemoryBank, error) {
	q = strings.ToLower(strings.TrimSpace(q))
	if q == "" || limit <= 0 {
		return []MemoryBank{}, nil
	}
	pat := "%" + strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(q) + "%"
	rows, err := db.R.QueryContext(ctx, `SELECT `+memoryBankColumns+` FROM memory_banks WHERE account_id = $1 AND deleted_at IS NULL
		AND (LOWER(name) LIKE $2 ESCAPE '\' OR LOWER(COALESCE(description, '')) LIKE $2 ESCAPE '\')
		ORDER BY created_at DESC, id DESC LIMIT $3`, accountID, pat, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []MemoryBank{}
	for rows.Next() {
		b, err := scanMemoryBank(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

// MemoryBankPatch lists what an update changes: nil leaves a field; an
// empty string or a zero clears it (sets NULL).
type MemoryBankPatch struct {
	Name, Description, CompactionPrompt    *string
	RetentionDays, MaxTurns, MaxSizeTokens *int
	MaxAgeDays                             *int
	SourceID                               *string // "" clears
}

// UpdateMemoryBank applies p to a live bank of the account.
func (db *DB) UpdateMemoryBank(ctx context.Context, accountID, id string, p MemoryBankPatch) (MemoryBank, error) {
	sets, args := []string{"updated_at = $1"}, []any{Now()}
	add := func(col string, v any) {
		args = append(args, v)
		sets = append(sets, col+" = $"+itoa(len(args)))
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
	res, err := db.W.ExecContext(ctx, `UPDATE memory_banks SET `+strings.Join(sets, ", ")+` WHERE account_id = $`+itoa(len(args)-1)+
		` AND id = $`+itoa(len(args))+` AND deleted_at IS NULL`, args...)
	if err != nil {
		return MemoryBank{}, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return MemoryBank{}, ErrNotFound
	}
	return db.MemoryBank(ctx, accountID, id)
}

// DeleteMemoryBank soft-deletes a bank and hard-deletes its entries and
// stat totals.
func (db *DB) DeleteMemoryBank(ctx context.Context, accountID, id string) error {
	return db.Tx(ctx, func(tx *sql.Tx) error {
		// Locking the bank's row first waits for the inserts under way
		// (each holds a key-share lock on it, from its foreign key) and
		// makes later ones wait: none lands between the two deletes
		// below, counted in totals that are gone or missing from them.
		var one int
		err := tx.QueryRowContext(ctx, `SELECT 1 FROM memory_banks WHERE account_id = $1 AND id = $2 AND deleted_at IS NULL`+db.lockFor("UPDATE"),
			accountID, id).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE memory_banks SET deleted_at = $1 WHERE id = $2`, Now(), id); err != nil {
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
func (db *DB) ClearMemoryBankSource(ctx context.Context, accountID, id string) (string, error) {
	var src sql.NullString
	err := db.Tx(ctx, func(tx *sql.Tx) error {
		// The bank's row lock orders this against a compaction of the
		// bank (ReplaceMemoryEntries): a summary committed while the
		// entries were being deleted would otherwise outlive the reset.
		err := tx.QueryRowContext(ctx, `SELECT source_connection_id FROM memory_banks WHERE account_id = $1 AND id = $2 AND deleted_at IS NULL`+
			db.lockFor("UPDATE"), accountID, id).Scan(&src)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE memory_banks SET source_connection_id = NULL, updated_at = $1 WHERE id = $2`, Now(), id); err != nil {
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
func (db *DB) SetMemoryBankSourceIfUnset(ctx context.Context, accountID, id, src string) (string, error) {
	if _, err := db.W.ExecContext(ctx, `UPDATE memory_banks SET source_connection_id = $1 WHERE account_id = $2 AND id = $3 AND source_connection_id IS NULL`,
		src, accountID, id); err != nil {
		return "", err
	}
	var cur sql.NullString
	err := db.W.QueryRowContext(ctx, `SELECT source_connection_id FROM memory_banks WHERE account_id = $1 AND id = $2`, accountID, id).Scan(&cur)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrNotFound
	}
	return cur.String, err
}

// MemoryBanksWithThresholds lists every live bank (all accounts) with a
// compaction threshold or a retention period, for the background sweep.
func (db *DB) MemoryBanksWithThresholds(ctx context.Context) ([]MemoryBank, error) {
	rows, err := db.R.QueryContext(ctx, `SELECT `+memoryBankColumns+` FROM memory_banks WHERE deleted_at IS NULL
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
