package search

import (
	"context"
	"database/sql"
	"strconv"
	"strings"

	"github.com/agentry/agentry/internal/store"
)

// The search's one query. All tables are searched in one statement (UNION
// ALL), each branch ranked in SQL so it returns only its best rows:
// name-prefix (0), name-substring (1), description-substring (2). SQLite's
// LIKE ignores ASCII case, PostgreSQL's ILIKE any case; neither needs
// LOWER() per row.

// searchHit is a row found; Table is the index of its table.
type searchHit struct {
	Table       int
	ID, Name    string
	Description *string
	Rank        int
}

// searchTables finds up to limit rows per table of the account: by exact
// id when byID, else whose name or description holds text.
func searchTables(ctx context.Context, db *store.DB, tables []store.SearchTable, accountID, text string, byID bool, limit int) ([]searchHit, error) {
	like := "LIKE"
	if db.Dialect == store.Postgres {
		like = "ILIKE"
	}
	var b strings.Builder
	n := 0
	for i, t := range tables {
		if t.IDOnly && !byID {
			continue
		}
		if n > 0 {
			b.WriteString(" UNION ALL ")
		}
		n++
		desc := "CAST(NULL AS TEXT)"
		if t.DescExpr != "" {
			desc = t.DescExpr
		}
		idx := strconv.Itoa(i)
		b.WriteString(`SELECT * FROM (SELECT ` + idx + ` AS t, id, ` + t.NameExpr + ` AS name, ` + desc + ` AS description, `)
		if byID {
			b.WriteString(`0 AS rank FROM ` + t.Table + ` WHERE account_id = $1 AND id = $2`)
		} else {
			b.WriteString(`CASE WHEN ` + t.NameExpr + ` ` + like + ` $2 ESCAPE '\' THEN 0 WHEN ` + t.NameExpr + ` ` + like + ` $3 ESCAPE '\' THEN 1 ELSE 2 END AS rank
				FROM ` + t.Table + ` WHERE account_id = $1 AND (` + t.NameExpr + ` ` + like + ` $3 ESCAPE '\' OR ` + desc + ` ` + like + ` $3 ESCAPE '\')`)
		}
		if t.Where != "" {
			b.WriteString(` AND ` + t.Where)
		}
		b.WriteString(` ORDER BY rank, LOWER(` + t.NameExpr + `), id LIMIT ` + strconv.Itoa(limit) + `) s` + idx)
	}
	if n == 0 {
		return nil, nil
	}
	args := []any{accountID, strings.ToLower(text)}
	if !byID {
		esc := store.EscapeLike(strings.ToLower(text))
		args = []any{accountID, esc + "%", "%" + esc + "%"}
	}
	rows, err := db.R.QueryContext(ctx, b.String(), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []searchHit
	for rows.Next() {
		var h searchHit
		var desc sql.NullString
		if err := rows.Scan(&h.Table, &h.ID, &h.Name, &desc, &h.Rank); err != nil {
			return nil, err
		}
		h.Description = store.StringOrNil(desc)
		out = append(out, h)
	}
	return out, rows.Err()
}
