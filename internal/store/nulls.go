package store

import (
	"database/sql"
	"encoding/json"
)

// The conversions between nullable columns and Go values that the
// exported helpers of repo.go wrap for the areas' repositories.

func nullInt(n sql.NullInt64) *int {
	if !n.Valid {
		return nil
	}
	v := int(n.Int64)
	return &v
}

func nullableJSON(b json.RawMessage) any {
	if len(b) == 0 || string(b) == "null" {
		return nil
	}
	return string(b)
}

func nullablePtr(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

func rawOrNil(s sql.NullString) json.RawMessage {
	if !s.Valid {
		return nil
	}
	return json.RawMessage(s.String)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
