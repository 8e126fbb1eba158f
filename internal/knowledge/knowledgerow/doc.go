// Package knowledgerow is the knowledge area's tables (knowledge_bases,
// sources, contents) as other areas ask about them: whether a knowledge
// base or a source is live in an account, the oldest live one of a name,
// which of some ids are live, and their names (the solutions area's
// links, repo.go); and how the account search (internal/search) finds
// each of the three (BaseSearch, SourceSearch, ContentSearch).
//
// It is a package of its own, beside the service, so those areas need
// not reach into the knowledge service for a row, and so a question asked
// in a write is answered in the write's transaction: each function takes
// the caller's querier, a pool or a transaction. It imports no service.
// Only the knowledge area (its repository and this package) names its
// tables (archtest's TestAreasOwnTheirTables).
package knowledgerow
