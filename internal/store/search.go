package store

import (
	"context"
	"database/sql"
	"strings"
)

// Account search (GET /search) reads every searchable table the same way;
// a SearchTable says where a resource type keeps its id, name and
// description. The ranking is in SQL so each table returns only its best
// rows: name-prefix (0), name-substring (1), description-substring (2).

// SearchTable describes one searchable resource table.
type SearchTable struct {
	Table       string
	NameExpr    string // SQL giving the display name
	DescExpr    string // SQL giving the description; "" for none
	Where       string // extra condition (live rows only…); "" for none
	IDOnly      bool   // matched by exact id only (runs)
	NoNameMatch bool   // the name is not searched (it is derived)
}

// SearchHit is a row found.
type SearchHit struct {
	ID, Name    string
	Description *string
	Rank        int
}

// SearchByID finds the row of the account with exactly this id.
func (db *DB) SearchByID(ctx context.Context, t SearchTable, accountID, id string) ([]SearchHit, error) {
	q := `SELECT id, ` + t.NameExpr + `, ` + descOrNull(t) + ` FROM ` + t.Table + ` WHERE account_id = $1 AND id = $2`
	if t.Where != "" {
		q += ` AND ` + t.Where
	}
	return db.searchRows(ctx, q, accountID, strings.ToLower(id))
}

// SearchByText finds up to limit rows of the account whose name or
// description holds text (case-insensitive), best ranked first.
func (db *DB) SearchByText(ctx context.Context, t SearchTable, accountID, text string, limit int) ([]SearchHit, error) {
	if t.IDOnly {
		return nil, nil
	}
	esc := EscapeLike(strings.ToLower(text))
	name := `LOWER(` + t.NameExpr + `)`
	desc := `LOWER(COALESCE(` + descOrNull(t) + `, ''))`
	match := name + ` LIKE $3 ESCAPE '\' OR ` + desc + ` LIKE $3 ESCAPE '\'`
	if t.NoNameMatch {
		match = desc + ` LIKE $3 ESCAPE '\'`
	}
	q := `SELECT id, name, description, rank FROM (SELECT id, ` + t.NameExpr + ` AS name, ` + descOrNull(t) + ` AS description,
		CASE WHEN ` + name + ` LIKE $2 ESCAPE '\' THEN 0 WHEN ` + name + ` LIKE $3 ESCAPE '\' THEN 1 ELSE 2 END AS rank
		FROM ` + t.Table + ` WHERE account_id = $1`
	if t.Where != "" {
		q += ` AND ` + t.Where
	}
	q += ` AND (` + match + `)) hits ORDER BY rank, LOWER(name), id LIMIT ` + itoa(limit)
	return db.searchRows(ctx, q, accountID, esc+"%", "%"+esc+"%")
}

func descOrNull(t SearchTable) string {
	if t.DescExpr == "" {
		return "CAST(NULL AS TEXT)"
	}
	return t.DescExpr
}

func (db *DB) searchRows(ctx context.Context, q string, args ...any) ([]SearchHit, error) {
	rows, err := db.R.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []SearchHit
	for rows.Next() {
		var h SearchHit
		var desc sql.NullString
		dest := []any{&h.ID, &h.Name, &desc}
		cols, _ := rows.Columns()
		if len(cols) == 4 {
			dest = append(dest, &h.Rank)
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		h.Description = nullStr(desc)
		out = append(out, h)
	}
	return out, rows.Err()
}
