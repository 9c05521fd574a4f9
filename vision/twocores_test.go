package vision

import (
	"runtime"
	"sync/atomic"
	"testing"
)

// TestSplitVisitsEachOnce: split2 and splitFrom call f over ranges that cover [0, n) exactly
// once, with one core or two, below and above the size worth splitting.
func TestSplitVisitsEachOnce(t *testing.T) {
	for _, procs := range []int{1, 2} {
		old := runtime.GOMAXPROCS(procs)
		for _, n := range []int{0, 1, 2, 7, splitMin - 1, splitMin, splitMin + 1, 1000, 1001} {
			for _, least := range []int{0, 1, 2, 8, splitMin} {
				seen := make([]int32, n)
				calls := int32(0)
				f := func(lo, hi int) {
					atomic.AddInt32(&calls, 1)
					for i := lo; i < hi; i++ {
						atomic.AddInt32(&seen[i], 1)
					}
				}
				if least == splitMin {
					split2(n, f)
				} else {
					splitFrom(n, least, f)
				}
				for i, v := range seen {
					if v != 1 {
						t.Fatalf("GOMAXPROCS %d, n %d, least %d: index %d visited %d times", procs, n, least, i, v)
					}
				}
				want := int32(1)
				if procs == 2 && n >= max(2, least) {
					want = 2
				}
				if calls != want {
					t.Errorf("GOMAXPROCS %d, n %d, least %d: %d calls, want %d", procs, n, least, calls, want)
				}
			}
		}
		runtime.GOMAXPROCS(old)
	}
}
