package dmarc

// The DMARC area keeps its own persistence (issue 31's vertical slices):
// the tables dmarc_reports and dmarc_records are read and written only
// here; the store lends its pools, transactions and clock.

import (
	"context"
	"database/sql"
	"sort"
	"time"

	"github.com/agentry/agentry/internal/store"
)

// storedReport is one aggregate report received for a domain.
type storedReport struct {
	AccountID, DomainID, OrgName, ReportID string
	Begins, Ends                           time.Time
	Records                                []storedRecord
}

// storedRecord is one row of a report: messages from one source IP.
type storedRecord struct {
	SourceIP, Disposition, HeaderFrom string
	Count                             int64
	DKIMPass, SPFPass                 bool
}

// repo is the area's SQL.
type repo struct{ db *store.DB }

// add stores a report with its rows. The same report received again (same
// reporter and report id) is kept once: added is false.
func (r repo) add(ctx context.Context, rep storedReport) (added bool, err error) {
	err = r.db.Tx(ctx, func(tx *sql.Tx) error {
		id := store.NewID()
		res, err := tx.ExecContext(ctx, `INSERT INTO dmarc_reports (id, account_id, domain_id, org_name, report_id, begins_at, ends_at, received_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (domain_id, org_name, report_id) DO NOTHING`,
			id, rep.AccountID, rep.DomainID, rep.OrgName, rep.ReportID, rep.Begins.UTC(), rep.Ends.UTC(), store.Now())
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		added = true
		for i, rec := range rep.Records {
			if _, err := tx.ExecContext(ctx, `INSERT INTO dmarc_records (report_id, seq, source_ip, count, disposition, dkim_pass, spf_pass, header_from)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, id, i, rec.SourceIP, rec.Count, rec.Disposition, rec.DKIMPass, rec.SPFPass, rec.HeaderFrom); err != nil {
				return err
			}
		}
		return nil
	})
	return added, err
}

// FailingSource is a source whose messages failed DMARC.
type FailingSource struct {
	SourceIP, HeaderFrom string
	Failed               int64
}

// Totals sums a domain's reports whose period ended after since.
type Totals struct {
	Reports, Total, Passed int64
	Dispositions           map[string]int64
	TopFailing             []FailingSource
}

// totals sums one of an account's domain's reports since a time, with up
// to top failing sources (most failed messages first).
func (r repo) totals(ctx context.Context, accountID, domainID string, since time.Time, top int) (Totals, error) {
	s := Totals{Dispositions: map[string]int64{}}
	if err := r.db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM dmarc_reports WHERE account_id = $1 AND domain_id = $2 AND ends_at >= $3`,
		accountID, domainID, since).Scan(&s.Reports); err != nil {
		return s, err
	}
	// A message passes DMARC when aligned DKIM or SPF passed.
	rows, err := r.db.R.QueryContext(ctx, `SELECT rec.source_ip, rec.header_from, rec.disposition, rec.dkim_pass OR rec.spf_pass, SUM(rec.count)
		FROM dmarc_records rec JOIN dmarc_reports rep ON rep.id = rec.report_id
		WHERE rep.account_id = $1 AND rep.domain_id = $2 AND rep.ends_at >= $3
		GROUP BY rec.source_ip, rec.header_from, rec.disposition, rec.dkim_pass OR rec.spf_pass`, accountID, domainID, since)
	if err != nil {
		return s, err
	}
	defer rows.Close()
	failing := map[[2]string]int64{}
	for rows.Next() {
		var ip, from, disp string
		var pass bool
		var n int64
		if err := rows.Scan(&ip, &from, &disp, &pass, &n); err != nil {
			return s, err
		}
		s.Total += n
		s.Dispositions[disp] += n
		if pass {
			s.Passed += n
		} else {
			failing[[2]string{ip, from}] += n
		}
	}
	if err := rows.Err(); err != nil {
		return s, err
	}
	for k, n := range failing {
		s.TopFailing = append(s.TopFailing, FailingSource{SourceIP: k[0], HeaderFrom: k[1], Failed: n})
	}
	sort.Slice(s.TopFailing, func(i, j int) bool {
		a, b := s.TopFailing[i], s.TopFailing[j]
		if a.Failed != b.Failed {
			return a.Failed > b.Failed
		}
		return a.SourceIP+a.HeaderFrom < b.SourceIP+b.HeaderFrom
	})
	if len(s.TopFailing) > top {
		s.TopFailing = s.TopFailing[:top]
	}
	return s, nil
}
