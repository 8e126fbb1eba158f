package lexical

import "sort"

func sortHits(h []Hit) { sort.Slice(h, func(i, j int) bool { return better(h[i], h[j]) }) }
