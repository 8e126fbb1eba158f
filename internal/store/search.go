package store

// Account search (GET /search, internal/search) reads every searchable
// table the same way; a SearchTable says where a resource type keeps its
// id, name and description. It is declared here, below every area, so an
// area can describe its own table (governance.PolicySearch) without
// importing the search, which reads all of them.

// SearchTable describes one searchable resource table.
type SearchTable struct {
	Table    string
	NameExpr string // SQL giving the display name
	DescExpr string // SQL giving the description; "" for none
	Where    string // extra condition (live rows only…); "" for none
	IDOnly   bool   // matched by exact id only (runs)
}
