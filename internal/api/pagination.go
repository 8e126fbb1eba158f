package api

import (
	"context"

	"github.com/agentry/agentry/internal/paging"
	"github.com/agentry/agentry/internal/version"
)

// Bounds of page and offset query parameters, declared as their maximum so
// that a request past them is a 422 naming the parameter. Without a bound,
// (page-1)*limit overflows and a huge page wraps around to the first one.
// A million pages of the largest page size is far beyond any real list.
const (
	MaxPage   = 1_000_000
	MaxOffset = 100_000_000
)

// Pagination is the canonical pagination block of the {data, pagination} envelope.
type Pagination struct {
	Page    int  `json:"page"`
	Limit   int  `json:"limit"`
	Total   int  `json:"total"`
	Pages   int  `json:"pages"`
	HasNext bool `json:"has_next"`
	HasPrev bool `json:"has_prev"`
}

// Envelope is the canonical list response from version 2026-07-27 on.
type Envelope[T any] struct {
	Data       []T        `json:"data"`
	Pagination Pagination `json:"pagination"`
}

// PageOf computes the pagination block for a page (1-based) of limit items
// out of total.
func PageOf(page, limit, total int) Pagination {
	if limit < 1 {
		limit = 1
	}
	if page < 1 {
		page = 1
	}
	pages := paging.Pages(total, limit)
	return Pagination{Page: page, Limit: limit, Total: total, Pages: pages,
		HasNext: page < pages, HasPrev: page > 1}
}

// List answers a page of items in the shape the request's version asks for:
// the canonical envelope when strict, otherwise whatever legacy shape the
// operation always answered (a bare array, {data,total,page,limit},
// {configs,total}, …), built by legacy. Every list handler goes through it,
// so the two shapes never drift apart.
func List[T any](ctx context.Context, items []T, p Pagination, legacy func(items []T, p Pagination) any) any {
	if items == nil {
		items = []T{}
	}
	if version.Strict(Version(ctx)) {
		return Envelope[T]{Data: items, Pagination: p}
	}
	return legacy(items, p)
}
