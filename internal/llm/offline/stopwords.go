package offline

// stopwords are skipped by word and bigram features and by the relevance
// ranking: without IDF weights, frequent function words would otherwise
// dominate every vector. The list is short on purpose; negations ("not",
// "no") stay out of it because they change meaning.
var stopwords = func() map[string]struct{} {
	words := []string{
		"a", "about", "above", "after", "again", "all", "also", "am", "an", "and", "any", "are", "as", "at",
		"be", "because", "been", "before", "being", "below", "between", "both", "but", "by",
		"can", "could", "did", "do", "does", "doing", "down", "during", "each", "few", "for", "from", "further",
		"had", "has", "have", "having", "he", "her", "here", "hers", "herself", "him", "himself", "his", "how",
		"i", "if", "in", "into", "is", "it", "its", "itself", "just", "me", "more", "most", "my", "myself",
		"of", "off", "on", "once", "only", "or", "other", "our", "ours", "ourselves", "out", "over", "own",
		"same", "she", "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them",
		"themselves", "then", "there", "these", "they", "this", "those", "through", "to", "too", "under",
		"until", "up", "very", "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom",
		"why", "will", "with", "would", "you", "your", "yours", "yourself", "yourselves", "s", "t", "d", "ll",
		"m", "re", "ve", "much", "many", "one", "tell", "please", "does", "use", "used", "using",
	}
	m := make(map[string]struct{}, len(words))
	for _, w := range words {
		m[w] = struct{}{}
	}
	return m
}()

func isStopword(b []byte) bool {
	_, ok := stopwords[string(b)] // no allocation: the compiler special-cases map[string(b)]
	return ok
}
