package vector

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"
)

func randVec(r *rand.Rand, d int) []float32 {
	v := make([]float32, d)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return v
}

// clustered draws vectors around a few hundred centres, closer to how
// text embeddings spread than isotropic noise.
func clustered(r *rand.Rand, n, d, centres int) [][]float32 {
	cs := make([][]float32, centres)
	for i := range cs {
		cs[i] = randVec(r, d)
	}
	out := make([][]float32, n)
	for i := range out {
		c := cs[r.IntN(centres)]
		v := make([]float32, d)
		for j := range v {
			v[j] = c[j] + 0.6*float32(r.NormFloat64())
		}
		out[i] = v
	}
	return out
}

func recallAt(ix *Index, qs [][]float32, k int) float64 {
	found, total := 0, 0
	for _, q := range qs {
		want := map[string]bool{}
		for _, h := range ix.Exact(q, k) {
			want[h.ID] = true
		}
		for _, h := range ix.Search(q, k) {
			if want[h.ID] {
				found++
			}
		}
		total += len(want)
	}
	return float64(found) / float64(total)
}

func TestSearchMatchesExactOnSmallSets(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	ix := New(64)
	vs := clustered(r, 3000, 64, 40)
	for i, v := range vs {
		if err := ix.Add(fmt.Sprint(i), v); err != nil {
			t.Fatal(err)
		}
	}
	if ix.Len() != 3000 {
		t.Fatalf("Len = %d", ix.Len())
	}
	var qs [][]float32
	for range 100 {
		qs = append(qs, randVec(r, 64))
	}
	if rec := recallAt(ix, qs, 10); rec < 0.97 {
		t.Errorf("recall@10 = %.3f", rec)
	}
	// A stored vector finds itself first with similarity 1.
	h := ix.Search(vs[17], 3)
	if len(h) != 3 || h[0].ID != "17" || math.Abs(float64(h[0].Score-1)) > 1e-4 {
		t.Errorf("self search: %+v", h)
	}
	for i := 1; i < len(h); i++ {
		if h[i].Score > h[i-1].Score {
			t.Errorf("not best first: %+v", h)
		}
	}
}

func TestCosineScores(t *testing.T) {
	ix := New(2)
	_ = ix.Add("x", []float32{3, 0})
	_ = ix.Add("y", []float32{0, 5})
	_ = ix.Add("xy", []float32{1, 1})
	h := ix.Search([]float32{10, 0}, 3)
	want := []Hit{{"x", 1}, {"xy", float32(1 / math.Sqrt2)}, {"y", 0}}
	if len(h) != 3 {
		t.Fatalf("%+v", h)
	}
	for i := range want {
		if h[i].ID != want[i].ID || math.Abs(float64(h[i].Score-want[i].Score)) > 1e-5 {
			t.Errorf("hit %d = %+v, want %+v", i, h[i], want[i])
		}
	}
}

func TestReplaceDeleteAndBadInput(t *testing.T) {
	ix := New(3)
	if h := ix.Search([]float32{1, 0, 0}, 5); h != nil {
		t.Errorf("empty index returned %v", h)
	}
	if err := ix.Add("a", []float32{1, 0}); !errors.Is(err, ErrDims) {
		t.Errorf("wrong dims: %v", err)
	}
	if err := ix.Add("a", []float32{1, float32(math.NaN()), 0}); err == nil {
		t.Error("NaN accepted")
	}
	if err := ix.Add("a", []float32{1, 0, 0}); err != nil {
		t.Fatal(err)
	}
	_ = ix.Add("b", []float32{0, 1, 0})
	// Replacing moves a to a new place; it is found there only, once.
	_ = ix.Add("a", []float32{0, 0, 1})
	if ix.Len() != 2 {
		t.Errorf("Len after replace = %d", ix.Len())
	}
	h := ix.Search([]float32{0, 0, 1}, 5)
	if len(h) != 2 || h[0].ID != "a" || h[0].Score < 0.999 || h[1].ID != "b" {
		t.Errorf("after replace: %+v", h)
	}
	if !ix.Delete("a") || ix.Delete("a") || ix.Delete("nope") {
		t.Error("Delete results")
	}
	h = ix.Search([]float32{0, 0, 1}, 5)
	if len(h) != 1 || h[0].ID != "b" {
		t.Errorf("after delete: %+v", h)
	}
	// Deleting everything and searching again must not panic.
	ix.Delete("b")
	if ix.Len() != 0 || ix.Search([]float32{0, 0, 1}, 5) != nil {
		t.Error("not empty after deleting all")
	}
	_ = ix.Add("c", []float32{0, 1, 1})
	if h := ix.Search([]float32{0, 1, 0}, 1); len(h) != 1 || h[0].ID != "c" {
		t.Errorf("after refill: %+v", h)
	}
	// Bad queries.
	if ix.Search([]float32{1}, 3) != nil || ix.Search([]float32{1, 0, 0}, 0) != nil {
		t.Error("bad query answered")
	}
	// The zero vector is stored and scores 0.
	_ = ix.Add("zero", []float32{0, 0, 0})
	for _, h := range ix.Search([]float32{0, 1, 0}, 5) {
		if h.ID == "zero" && h.Score != 0 {
			t.Errorf("zero vector scored %v", h.Score)
		}
	}
	// Callers' slices are copied.
	v := []float32{1, 0, 0}
	_ = ix.Add("d", v)
	v[0], v[1] = 0, 1
	if h := ix.Search([]float32{1, 0, 0}, 1); h[0].ID != "d" {
		t.Errorf("stored vector aliased caller's slice: %+v", h)
	}
}

// TestChurnKeepsRecall replaces and deletes most of the index (through
// tombstones and compaction) and checks that search stays exact-like and
// never returns a deleted or stale id.
func TestChurnKeepsRecall(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const d, n = 32, 4000
	ix := New(d)
	cur := map[string][]float32{}
	for i := range n {
		v := randVec(r, d)
		id := fmt.Sprint(i)
		_ = ix.Add(id, v)
		cur[id] = v
	}
	for round := range 3 {
		for i := range n {
			id := fmt.Sprint(i)
			switch {
			case i%3 == round%3:
				if ix.Delete(id) != (cur[id] != nil) {
					t.Fatalf("Delete(%s) disagrees", id)
				}
				delete(cur, id)
			case i%3 == (round+1)%3:
				v := randVec(r, d)
				_ = ix.Add(id, v)
				cur[id] = v
			}
		}
		if ix.Len() != len(cur) {
			t.Fatalf("round %d: Len %d, want %d", round, ix.Len(), len(cur))
		}
		var qs [][]float32
		for range 50 {
			qs = append(qs, randVec(r, d))
		}
		for _, q := range qs {
			for _, h := range ix.Search(q, 10) {
				v, ok := cur[h.ID]
				if !ok {
					t.Fatalf("round %d: deleted id %s returned", round, h.ID)
				}
				ex := ix.Exact(v, 1)
				if ex[0].ID != h.ID && ex[0].Score < 0.9999 {
					t.Fatalf("round %d: stale vector for %s", round, h.ID)
				}
			}
		}
		if rec := recallAt(ix, qs, 10); rec < 0.95 {
			t.Errorf("round %d: recall@10 %.3f after churn (dead %d)", round, rec, ix.nDead)
		}
	}
}

func TestConcurrentUse(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	ix := New(16)
	vs := make([][]float32, 2000)
	for i := range vs {
		vs[i] = randVec(r, 16)
	}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(vs); i += 4 {
				_ = ix.Add(fmt.Sprint(i), vs[i])
				if i%7 == 0 {
					ix.Delete(fmt.Sprint(i - 1))
				}
				if h := ix.Search(vs[i], 5); len(h) == 0 {
					t.Error("no hits while writing")
					return
				}
			}
		}()
	}
	wg.Wait()
	if n := ix.Len(); n < 1500 || n > 2000 {
		t.Errorf("Len = %d", n)
	}
}

// A batch built in parallel is as good a graph as one built one vector at
// a time, and replaces ids already present (the later of duplicates wins).
func TestAddBatchParallel(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	vs := clustered(r, 6000, 48, 60)
	ids := make([]string, len(vs))
	for i := range ids {
		ids[i] = fmt.Sprint(i)
	}
	serial := New(48)
	for i, v := range vs {
		_ = serial.Add(ids[i], v)
	}
	ix := New(48)
	if err := ix.Add("0", vs[1]); err != nil { // replaced by the batch
		t.Fatal(err)
	}
	batch := append(slices.Clone(ids), "5")
	bvs := append(slices.Clone(vs), vs[9])
	if err := ix.AddBatch(batch, bvs); err != nil {
		t.Fatal(err)
	}
	if ix.Len() != len(vs) {
		t.Fatalf("len %d, want %d", ix.Len(), len(vs))
	}
	qs := clustered(r, 100, 48, 60)
	rs, rp := recallAt(serial, qs, 10), recallAt(ix, qs, 10)
	if rp < 0.95 || rp < rs-0.02 {
		t.Fatalf("recall@10: parallel build %.3f, serial %.3f", rp, rs)
	}
	if h := ix.Search(vs[9], 2); len(h) < 2 || (h[0].ID != "5" && h[1].ID != "5") {
		t.Fatalf("the later duplicate did not win: %v", h)
	}
	if h := ix.Search(vs[0], 1); len(h) != 1 || h[0].ID == "0" && h[0].Score < 0.999 {
		t.Fatalf("replaced id: %v", h)
	}
}

// The size estimate that bounds the in-process indexes together is near
// the memory an index really holds (measured as heap growth), and is
// nothing for an empty index.
func TestSizeEstimate(t *testing.T) {
	if New(64).SizeBytes() != 0 {
		t.Fatal("an empty index has a size")
	}
	const n, dims = 4096, 128
	rng := rand.New(rand.NewPCG(3, 4))
	ids := make([]string, n)
	vecs := make([][]float32, n)
	for i := range vecs {
		ids[i] = strconv.Itoa(100000 + i)
		vecs[i] = make([]float32, dims)
		for j := range vecs[i] {
			vecs[i][j] = rng.Float32() - 0.5
		}
	}
	var before, after runtime.MemStats
	// Twice: what earlier tests left in sync.Pools survives one collection
	// (the pools' victim cache) and would be freed during the measurement.
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&before)
	ix := New(dims)
	if err := ix.AddBatch(ids, vecs); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&after)
	est, heap := ix.SizeBytes(), int64(after.HeapAlloc)-int64(before.HeapAlloc)
	t.Logf("%d vectors of %d dimensions: estimate %d bytes, heap growth %d bytes", n, dims, est, heap)
	if est < heap*2/3 || est > heap*3/2 {
		t.Fatalf("estimate %d bytes is off the heap growth %d bytes by more than half", est, heap)
	}
	runtime.KeepAlive(ix)
	runtime.KeepAlive(vecs) // not freed between the two readings
}
