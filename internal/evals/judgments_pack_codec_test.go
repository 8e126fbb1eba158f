package evals

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/store"
)

// packingDB is the runs area's repository on a database of dialect d,
// packing judgments as the server builds it to (runs.NewRepo).
func packingDB(d store.Dialect) *runs.Repo {
	return runs.NewRepo(&store.DB{Dialect: d}, PackJudgments)
}

// The codec takes judgments of every kind back to the bytes they were,
// names its dictionary in what it writes, and refuses, rather than
// expands without bound, a value that is not what it wrote.
func TestJudgmentsCodec(t *testing.T) {
	t.Parallel()
	sqlite := packingDB(store.SQLite)
	for _, js := range []string{`[]`, judgmentsDict1, `[{"id":"x","details":{"explanation":"` + strings.Repeat("é", 5000) + `"}}]`} {
		packed := sqlite.PackJudgments([]byte(js))
		if len(packed) == 0 || packed[0] != judgmentsDict1Tag {
			t.Fatalf("not packed with dictionary 1: %q", packed)
		}
		if again := sqlite.PackJudgments(packed); !bytes.Equal(again, packed) {
			t.Errorf("packing a packed value changed it")
		}
		plain, err := unpackJudgments(packed)
		if err != nil || string(plain) != js {
			t.Errorf("unpacked %q, %v", plain, err)
		}
	}
	if got := packingDB(store.Postgres).PackJudgments([]byte(`[]`)); string(got) != `[]` {
		t.Errorf("PostgreSQL packed %q", got)
	}
	if plain, err := unpackJudgments([]byte(`[{"id":"x"}]`)); err != nil || string(plain) != `[{"id":"x"}]` {
		t.Errorf("plain JSON read as %q, %v", plain, err)
	}
	packed := sqlite.PackJudgments([]byte(judgmentsDict1))
	if _, err := unpackJudgments(packed[:len(packed)-3]); err == nil {
		t.Errorf("a cut value unpacked")
	}
	bomb := binary.AppendUvarint([]byte{judgmentsDict1Tag}, maxJudgmentsBytes+1)
	if _, err := unpackJudgments(append(bomb, 0, 0, 0)); err == nil || !strings.Contains(err.Error(), "expand beyond") {
		t.Errorf("a value claiming to expand beyond the bound: %v", err)
	}
}

// FuzzUnpackJudgments: whatever a stored value holds, reading it returns
// an error or at most maxJudgmentsBytes, never a panic.
func FuzzUnpackJudgments(f *testing.F) {
	sqlite := packingDB(store.SQLite)
	f.Add([]byte(sqlite.PackJudgments([]byte(judgmentsDict1))))
	f.Add([]byte(`[{"id":"x"}]`))
	f.Add([]byte{judgmentsDict1Tag, 0x80, 0x80, 0x80, 0x08, 0})
	f.Fuzz(func(t *testing.T, stored []byte) {
		plain, err := unpackJudgments(stored)
		if err == nil && len(plain) > maxJudgmentsBytes {
			t.Fatalf("%d bytes", len(plain))
		}
	})
}

// BenchmarkPackJudgments: what packing and unpacking a typical
// deterministic judgment costs, and what it packs to.
func BenchmarkPackJudgments(b *testing.B) {
	sqlite := packingDB(store.SQLite)
	// Not the dictionary's own example: other ids, time and checks.
	js := []byte(`[{"id":"01a2b7e9-4c1d-7f02-a3b8-5d9e0c6f1a27","criteria_id":"01a2b7e9-4b90-73c5-9e14-8a2f6d3c0b95","evaluation_mode":"eval_and_retry",` +
		`"status":"passed","score":1,"evaluated_at":"2026-11-25T01:42:17.093512Z","details":{"checks":[{"check":"regex","passed":true,` +
		`"detail":"the output matches /^Answer:/"},{"check":"max_length","passed":true,"detail":"the output has 61 characters (at most 2000 allowed)"}],` +
		`"explanation":"2 of 2 expectation checks passed. Score 1.00 against a pass threshold of 0.80: passed.","pass_threshold":0.8}}]`)
	packed := sqlite.PackJudgments(js)
	b.Run("pack", func(b *testing.B) {
		for b.Loop() {
			sqlite.PackJudgments(js)
		}
		b.ReportMetric(float64(len(packed)), "bytes")
	})
	b.Run("unpack", func(b *testing.B) {
		for b.Loop() {
			if _, err := unpackJudgments(packed); err != nil {
				b.Fatal(err)
			}
		}
	})
}
