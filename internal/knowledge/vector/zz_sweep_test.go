package vector

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"
)

func TestZZSweep(t *testing.T) {
	if os.Getenv("SWEEP") == "" {
		t.Skip()
	}
	n, _ := strconv.Atoi(os.Getenv("SWEEP"))
	r := rand.New(rand.NewPCG(42, 4))
	all, qs := textCorpus(r, n, 80, 100, 12)
	st := time.Now()
	ix := New(384)
	if m, _ := strconv.Atoi(os.Getenv("SWEEP_M")); m > 0 {
		ix.m, ix.m0 = m, 2*m
		ix.levelMult = 1 / math.Log(float64(m))
	}
	if e, _ := strconv.Atoi(os.Getenv("SWEEP_EFC")); e > 0 {
		ix.efConstruction = e
	}
	for i, v := range all {
		_ = ix.Add(strconv.Itoa(i), v)
	}
	fmt.Println("build", time.Since(st))
	for _, ef := range []int{64, 128, 256, 512} {
		ix.SetEfSearch(ef)
		st := time.Now()
		rec := recallAt(ix, qs, 10)
		fmt.Println("ef", ef, "recall", rec, time.Since(st))
	}
}
