package api

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/agentry/agentry/internal/telemetry"
	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"
)

// RequestIDHeader carries the id of every request and response.
const RequestIDHeader = "X-Request-Id"

var safeRequestID = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)

// withRequestID gives every request an id — the caller's if it sent a sane
// one, a new one otherwise — and answers it in X-Request-Id.
func withRequestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(RequestIDHeader)
		if !safeRequestID.MatchString(id) {
			id = uuid.Must(uuid.NewV7()).String()
		}
		w.Header().Set(RequestIDHeader, id)
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), requestIDKey{}, id)))
	})
}

// withMediaType lowercases the media type of a request's Content-Type
// (media types are case-insensitive: Application/JSON is JSON), so that the
// body parser matches it. It does not reinterpret one type as another: a
// JSON operation sent text/plain, form encoding or any other non-JSON type
// answers 415 (docs/errors.md), and a body without a Content-Type is read as
// JSON.
func withMediaType(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ct := r.Header.Get("Content-Type"); ct != "" {
			mt, params, _ := strings.Cut(ct, ";")
			if lower := strings.ToLower(strings.TrimSpace(mt)); lower != mt {
				if params != "" {
					lower += ";" + params
				}
				r.Header.Set("Content-Type", lower)
			}
		}
		next.ServeHTTP(w, r)
	})
}

// withRecover turns a panic anywhere below into a 500 that names the request
// id, and logs the stack; the process keeps serving.
func withRecover(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rw := &telemetry.StatusWriter{ResponseWriter: w}
		defer func() {
			v := recover()
			if v == nil || v == http.ErrAbortHandler {
				if v != nil {
					panic(v)
				}
				return
			}
			id, _ := r.Context().Value(requestIDKey{}).(string)
			slog.Error("panic serving request", "request_id", id, "method", r.Method, "path", r.URL.Path, "panic", v, "stack", string(debug.Stack()))
			if !rw.Written() {
				writeJSON(rw, http.StatusInternalServerError, map[string]string{"detail": "Internal server error (request id " + id + ")"})
			}
		}()
		next.ServeHTTP(rw, r)
	})
}

// metrics counts and times requests by route pattern and known method (never
// by raw path or raw method, which would let clients create unbounded label
// values).
type metrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "agentry_http_requests_total", Help: "HTTP requests by route and status.",
		}, []string{"method", "route", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "agentry_http_request_duration_seconds", Help: "HTTP request latency by route.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 10},
		}, []string{"method", "route"}),
	}
	reg.MustRegister(m.requests, m.duration)
	return m
}

func (m *metrics) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rw, ok := w.(*telemetry.StatusWriter)
		if !ok {
			rw = &telemetry.StatusWriter{ResponseWriter: w}
		}
		// chi fills a route context it finds on the request, so the
		// pattern it matched can be read here after it routed.
		rctx := chi.NewRouteContext()
		next.ServeHTTP(rw, r.WithContext(context.WithValue(r.Context(), chi.RouteCtxKey, rctx)))
		route := rctx.RoutePattern()
		telemetry.HTTPRoute(r.Context(), r.Method, route) // names the request's span
		if route == "" {
			route = "unmatched"
		}
		status := rw.Status()
		method := metricMethod(r.Method)
		m.requests.WithLabelValues(method, route, strconv.Itoa(status)).Inc()
		m.duration.WithLabelValues(method, route).Observe(time.Since(start).Seconds())
	})
}

// metricMethod names a request's method for a label: one of the standard
// methods, or OTHER, since a client may send any token as a method and each
// would otherwise become a new series.
func metricMethod(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return m
	}
	return "OTHER"
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
