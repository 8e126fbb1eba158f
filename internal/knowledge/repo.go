package knowledge

// The knowledge area keeps its own persistence (issue 31's vertical
// slices): the tables it owns (see tablesOwnedByArea in internal/archtest)
// are read and written only here, through repo, which holds the store's
// pools and lends its helpers.

import (
	"database/sql"
	"encoding/json"

	"github.com/agentry/agentry/internal/store"
)

// repo is the area's SQL.
type repo struct{ db *store.DB }

func (s *Service) repo() repo { return repo{s.db} }

// repoOn is the repository on db, for the indexes, which hold the store
// rather than the service, and for the package's tests.
func repoOn(db *store.DB) repo { return repo{db} }

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// changed reads whether a statement changed a row.
func changed(res sql.Result, err error) (bool, error) {
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}
