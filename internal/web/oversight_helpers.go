package web

import (
	"net/url"
	"strconv"
)

// Template helpers of the oversight areas (memory, evaluations,
// governance), registered beside the shared ones.

func init() {
	funcs["pagerLinks"] = pagerLinks
	funcs["isTrue"] = func(b *bool) bool { return b != nil && *b }
}

// pager is a list's links to the previous and next pages ("" for none).
type pager struct{ Prev, Next string }

// pagerLinks builds the links of a page-numbered list at base, whose page
// number is the query parameter param; extra holds key, value pairs kept
// on both links (filters).
func pagerLinks(base, param string, page int, next bool, extra ...string) pager {
	link := func(n int) string {
		q := url.Values{}
		for i := 0; i+1 < len(extra); i += 2 {
			if extra[i+1] != "" {
				q.Set(extra[i], extra[i+1])
			}
		}
		if n > 1 {
			q.Set(param, strconv.Itoa(n))
		}
		if len(q) == 0 {
			return base
		}
		return base + "?" + q.Encode()
	}
	var p pager
	if page > 1 {
		p.Prev = link(page - 1)
	}
	if next {
		p.Next = link(page + 1)
	}
	return p
}
