package lexical

// stopwords are the English function words a query drops before it is
// scored: they occur in most passages, so they only add noise to the
// ranking ("what must be done" is about "done"). Passages keep them in
// the index, so that a query made only of stopwords ("to be or not to
// be") is still answered, scored on them. Negations are not dropped.
var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range []string{
		"a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any", "are", "as", "at",
		"be", "because", "been", "before", "being", "below", "between", "both", "but", "by",
		"can", "could", "did", "do", "does", "doing", "down", "during", "each", "either", "else", "etc", "ever", "every",
		"few", "for", "from", "further", "had", "has", "have", "having", "he", "her", "here", "hers", "herself",
		"him", "himself", "his", "how", "however", "i", "if", "in", "into", "is", "it", "its", "itself",
		"just", "may", "me", "might", "more", "most", "must", "my", "myself", "of", "off", "on", "once", "only",
		"or", "other", "ought", "our", "ours", "ourselves", "out", "over", "own", "same", "shall", "she", "should",
		"so", "some", "such", "than", "that", "the", "their", "theirs", "them", "themselves", "then", "there",
		"these", "they", "this", "those", "though", "through", "thus", "to", "too", "under", "until", "up", "upon",
		"us", "very", "was", "we", "were", "what", "whatever", "when", "where", "whether", "which", "while", "who",
		"whom", "whose", "why", "will", "with", "within", "would", "yet", "you", "your", "yours", "yourself",
		"yourselves", "s", "t", "d", "ll", "m", "re", "ve",
	} {
		m[w] = true
	}
	return m
}()
