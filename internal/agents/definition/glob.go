package definition

import "unicode/utf8"

// MatchGlob reports whether name matches an fnmatch-style pattern, the
// syntax of {{attachments[*.csv]}} selectors: * matches any run of
// characters (slashes included, unlike path.Match, since upload names are
// flat), ? one character, [abc] / [a-z] a set and [!abc] its complement.
// A [ without a closing ] is a literal. Matching is case-sensitive.
func MatchGlob(pattern, name string) bool {
	// Iterative matcher with one backtrack point for the last *, which is
	// linear-ish and cannot blow up on hostile patterns.
	p, n := 0, 0
	starP, starN := -1, 0
	for n < len(name) {
		if p < len(pattern) {
			switch pattern[p] {
			case '*':
				starP, starN = p, n
				p++
				continue
			case '?':
				_, size := utf8.DecodeRuneInString(name[n:])
				p++
				n += size
				continue
			case '[':
				r, size := utf8.DecodeRuneInString(name[n:])
				if ok, next, valid := matchClass(pattern, p, r); valid {
					if ok {
						p = next
						n += size
						continue
					}
				} else if name[n] == '[' {
					p++
					n++
					continue
				}
			default:
				pr, psize := utf8.DecodeRuneInString(pattern[p:])
				nr, nsize := utf8.DecodeRuneInString(name[n:])
				if pr == nr {
					p += psize
					n += nsize
					continue
				}
			}
		}
		if starP < 0 {
			return false
		}
		// Let the last * swallow one more character and retry.
		_, size := utf8.DecodeRuneInString(name[starN:])
		starN += size
		p, n = starP+1, starN
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}

// matchClass matches r against the class starting at pattern[start] == '['.
// valid is false when the class has no closing bracket.
func matchClass(pattern string, start int, r rune) (ok bool, next int, valid bool) {
	i := start + 1
	negate := false
	if i < len(pattern) && pattern[i] == '!' {
		negate = true
		i++
	}
	first := true
	for i < len(pattern) {
		if pattern[i] == ']' && !first {
			return matched(ok, negate), i + 1, true
		}
		first = false
		lo, size := utf8.DecodeRuneInString(pattern[i:])
		i += size
		hi := lo
		if i+1 < len(pattern) && pattern[i] == '-' && pattern[i+1] != ']' {
			hi, size = utf8.DecodeRuneInString(pattern[i+1:])
			i += 1 + size
		}
		if lo <= r && r <= hi {
			ok = true
		}
	}
	return false, 0, false
}

func matched(ok, negate bool) bool { return ok != negate }
