package store

import "context"

// ContentsPending is the status filter of SourceContents that keeps the
// contents still on their way: neither indexed nor failed.
const ContentsPending = "pending"

// SourceContents lists a page of a source's contents, newest first, with
// the total the filter matches. status "" keeps every content, a content
// status keeps that one, ContentsPending keeps those not yet indexed or
// failed. The source must be the account's and live (else ErrNotFound).
func (db *DB) SourceContents(ctx context.Context, accountID, sourceID, status string, offset, limit int) ([]Content, int, error) {
	if _, err := db.Source(ctx, accountID, sourceID); err != nil {
		return nil, 0, err
	}
	// The source is the account's (checked above), so are its contents:
	// filtering by source alone lets the count read the index only.
	where := `c.source_id = $1`
	args := []any{sourceID}
	switch status {
	case "":
	case ContentsPending:
		where += ` AND c.status NOT IN ('` + ContentIndexed + `', '` + ContentFailed + `')`
	default:
		where += ` AND c.status = $2`
		args = append(args, status)
	}
	var total int
	if err := db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM contents c WHERE `+where, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	n := len(args)
	args = append(args, limit, offset)
	// The page's ids are chosen first, in the order of the index
	// (source_id, created_at), which needs no sort: a deep page of a large
	// source skips index entries, not whole rows with their metadata.
	// (Contents created in the same instant keep the index's order.)
	rows, err := db.R.QueryContext(ctx, `SELECT `+contentColumns+` FROM contents c JOIN sources s ON s.id = c.source_id
		WHERE c.id IN (SELECT c.id FROM contents c WHERE `+where+` ORDER BY c.created_at DESC LIMIT $`+itoa(n+1)+` OFFSET $`+itoa(n+2)+`)
		ORDER BY c.created_at DESC`, args...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []Content{}
	for rows.Next() {
		c, err := scanContent(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, c)
	}
	return out, total, rows.Err()
}
