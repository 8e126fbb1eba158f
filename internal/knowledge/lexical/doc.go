// Package lexical owns the full-text side of knowledge search: the
// analyzer (words, stopwords, stemming), an in-memory inverted index of
// passages with two fields (the passage's text and its heading: the
// content's title and descriptive metadata), BM25F ranking over it, and
// RM3 pseudo-relevance feedback.
//
// It is a library: it knows nothing of databases or accounts. The
// knowledge service keeps one Index per source in step with the stored
// passages and combines the statistics of the sources a search covers, so
// a tenant's ranking depends on its own passages only.
package lexical
