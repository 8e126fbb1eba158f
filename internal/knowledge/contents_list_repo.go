package knowledge

import (
	"context"
	"strconv"
	"strings"

	"github.com/agentry/agentry/internal/store"
)

// ContentsPending is the status filter of SourceContents that keeps the
// contents still on their way: neither indexed nor failed.
const ContentsPending = "pending"

// contentsOnTheWay are the statuses ContentsPending keeps: every status
// but ContentIndexed and ContentFailed.
var contentsOnTheWay = []string{ContentQueued, ContentExtracting, ContentChunking, ContentEmbedding, ContentIndexing}

// sourceContents lists a page of a source's contents, newest first, with
// the total the filter matches. status "" keeps every content, a content
// status keeps that one, ContentsPending keeps those not yet indexed or
// failed. The source must be the account's and live (else
// store.ErrNotFound).
func (r repo) sourceContents(ctx context.Context, accountID, sourceID, status string, offset, limit int) ([]Content, int, error) {
	if _, err := r.Source(ctx, accountID, sourceID); err != nil {
		return nil, 0, err
	}
	count, page, args := sourceContentsQueries(r.db.Dialect, sourceID, status)
	var total int
	if err := r.db.R.QueryRowContext(ctx, count, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	out, err := store.All(ctx, r.db.R, scanContent, page, append(args, limit, offset)...)
	if err != nil {
		return nil, 0, err
	}
	return out, total, nil
}

// sourceContentsQueries returns sourceContents' count query and page query
// (whose last two placeholders, after args, are the limit and the offset).
//
// The source is the account's (checked before), so are its contents:
// filtering by source alone lets the count read an index only, (source_id,
// created_at) without a filter and (source_id, status, created_at) with
// one. The page's ids are chosen first, in the order of the index, which
// needs no sort: a deep page of a large source skips index entries, not
// whole rows with their metadata; the page's rows are then read by id.
// (Contents created in the same instant keep the index's order.)
func sourceContentsQueries(d store.Dialect, sourceID, status string) (count, page string, args []any) {
	from, where := `contents c`, `c.source_id = $1`
	args = []any{sourceID}
	switch status {
	case "":
	case ContentsPending:
		// The statuses on the way, listed, so that the index on the
		// status finds them (a NOT IN would read all of the source's).
		// SQLite, which keeps no statistics here, would rather walk the
		// source's contents in order and read each row's status: told
		// the index, it reads the few pending ones and sorts them.
		where += ` AND c.status IN ('` + strings.Join(contentsOnTheWay, "', '") + `')`
		if d == store.SQLite {
			from += ` INDEXED BY contents_source_status`
		}
	default:
		where += ` AND c.status = $2`
		args = append(args, status)
	}
	n := len(args)
	return `SELECT COUNT(*) FROM ` + from + ` WHERE ` + where,
		`SELECT ` + contentColumns + ` FROM (SELECT c.id FROM ` + from + ` WHERE ` + where + ` ORDER BY c.created_at DESC
		LIMIT $` + strconv.Itoa(n+1) + ` OFFSET $` + strconv.Itoa(n+2) + `) p JOIN contents c ON c.id = p.id JOIN sources s ON s.id = c.source_id
		ORDER BY c.created_at DESC`, args
}
