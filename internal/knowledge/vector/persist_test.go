package vector

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
)

// A snapshot read back is the same graph: the same answers to every query,
// tombstones kept, and it goes on accepting writes.
func TestSnapshotRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	ix := New(32)
	vs := clustered(r, 2500, 32, 20)
	for i, v := range vs {
		if err := ix.Add(fmt.Sprint(i), v); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 300; i += 3 {
		ix.Delete(fmt.Sprint(i))
	}
	var buf bytes.Buffer
	if _, err := ix.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	got, err := Read(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if got.Len() != ix.Len() || got.Dims() != 32 {
		t.Fatalf("len %d dims %d, want %d 32", got.Len(), got.Dims(), ix.Len())
	}
	for _, q := range clustered(r, 50, 32, 20) {
		a, b := ix.Search(q, 10), got.Search(q, 10)
		if fmt.Sprint(a) != fmt.Sprint(b) {
			t.Fatalf("answers differ:\n%v\n%v", a, b)
		}
	}
	if err := got.Add("new", vs[7]); err != nil {
		t.Fatal(err)
	}
	if h := got.Search(vs[7], 2); len(h) != 2 || (h[0].ID != "new" && h[1].ID != "new") {
		t.Fatalf("added after load: %v", h)
	}
	// An empty index round-trips too.
	buf.Reset()
	if _, err := New(8).WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	if e, err := Read(&buf); err != nil || e.Len() != 0 || e.Search(make([]float32, 8), 3) != nil {
		t.Fatalf("empty: %v", err)
	}
}

// Truncated or altered snapshots are refused with ErrSnapshot.
func TestSnapshotDamage(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	ix := New(16)
	for i, v := range clustered(r, 300, 16, 5) {
		_ = ix.Add(fmt.Sprint(i), v)
	}
	var buf bytes.Buffer
	if _, err := ix.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	for _, cut := range []int{0, 5, 20, 40, len(good) / 2, len(good) - 1} {
		if _, err := Read(bytes.NewReader(good[:cut])); !errors.Is(err, ErrSnapshot) {
			t.Fatalf("cut at %d: %v", cut, err)
		}
	}
	for _, at := range []int{9, 30, len(good) / 3, len(good) - 10} {
		bad := bytes.Clone(good)
		bad[at] ^= 0x40
		if _, err := Read(bytes.NewReader(bad)); !errors.Is(err, ErrSnapshot) {
			t.Fatalf("flipped byte %d: %v", at, err)
		}
	}
}

func FuzzRead(f *testing.F) {
	ix := New(4)
	for i := range 40 {
		_ = ix.Add(fmt.Sprint(i), []float32{float32(i), 1, float32(i % 3), -1})
	}
	var buf bytes.Buffer
	_, _ = ix.WriteTo(&buf)
	f.Add(buf.Bytes())
	f.Add([]byte(snapshotMagic))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := Read(bytes.NewReader(b))
		if err != nil {
			return
		}
		got.Search([]float32{1, 0, 0, 0}, 5)
		_ = got.Add("x", []float32{0, 1, 0, 0})
	})
}
