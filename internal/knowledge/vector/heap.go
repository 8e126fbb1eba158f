package vector

import "slices"

// cand is a node and its distance to the query.
type cand struct {
	n int32
	d float32
}

func sortCands(c []cand) {
	slices.SortFunc(c, func(a, b cand) int {
		switch {
		case a.d < b.d:
			return -1
		case a.d > b.d:
			return 1
		}
		return int(a.n - b.n)
	})
}

// minHeap pops the nearest candidate; maxHeap the farthest. Hand-written
// rather than container/heap to avoid interface calls on the hot path.
type minHeap []cand

func (h minHeap) Len() int { return len(h) }

func (h *minHeap) push(c cand) {
	*h = append(*h, c)
	s := *h
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if s[p].d <= s[i].d {
			break
		}
		s[p], s[i] = s[i], s[p]
		i = p
	}
}

func (h *minHeap) pop() cand {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s = s[:last]
	i := 0
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(s) && s[l].d < s[m].d {
			m = l
		}
		if r < len(s) && s[r].d < s[m].d {
			m = r
		}
		if m == i {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
	return top
}

type maxHeap []cand

func (h maxHeap) Len() int  { return len(h) }
func (h maxHeap) top() cand { return h[0] }

func (h *maxHeap) push(c cand) {
	*h = append(*h, c)
	s := *h
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if s[p].d >= s[i].d {
			break
		}
		s[p], s[i] = s[i], s[p]
		i = p
	}
}

func (h *maxHeap) pop() cand {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s = s[:last]
	i := 0
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(s) && s[l].d > s[m].d {
			m = l
		}
		if r < len(s) && s[r].d > s[m].d {
			m = r
		}
		if m == i {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
	return top
}

// drainAscending empties the heap into a slice sorted nearest first.
func (h *maxHeap) drainAscending() []cand {
	out := make([]cand, h.Len())
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = h.pop()
	}
	return out
}
