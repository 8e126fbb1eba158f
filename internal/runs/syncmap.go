package runs

import "sync"

// syncMap maps step attempts to their journal rows; parallel branches write it.
type syncMap struct {
	mu sync.Mutex
	m  map[string]string
}

func (s *syncMap) set(k, v string) {
	s.mu.Lock()
	if s.m == nil {
		s.m = map[string]string{}
	}
	s.m[k] = v
	s.mu.Unlock()
}

func (s *syncMap) get(k string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[k]
	return v, ok
}
