// Package knowledge owns the knowledge area: sources (content stores fed by
// uploads, RSS feeds, web sites), their contents and versions, the
// indexing pipeline (extract, chunk, embed, index as durable jobs), the
// search index (full text and vectors, fused by weight), knowledge
// bases and their search, the retrieval-side step types and the
// new_content trigger. What other areas ask of its knowledge bases,
// sources and contents (the solutions' links, the account search) is in
// its leaf package, knowledgerow.
package knowledge
