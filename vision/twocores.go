package vision

import (
	"runtime"
	"sync"
)

// Two cores.
//
// The machine tearcam runs on has two cores, and much of Register's and Measure's time is
// spent in loops over the frame's rows whose rows are independent: each row's output
// depends on inputs only, never on another row's output. split2 runs the two halves of such
// a loop at once. Each half computes exactly what the single loop computed for its rows (the
// same operations in the same order per row; sums are kept per half and added after only
// where they are integers), so results are the same bytes, and the CPU time is about the
// same: under load the halves merely share the cores as one loop would have. Steps that
// read the same inputs and write nothing the other reads run at once too (both, or a
// goroutine waited for before its inputs are closed).

// splitMin is the least number of rows (or pixels, or cells) worth two goroutines: split2
// is meant for loops over a frame's rows or pixels, where a goroutine's microsecond is
// nothing; below this, one goroutine does all.
const splitMin = 64

// split2 calls f(lo, hi) for the ranges [0, n/2) and [n/2, n) at once, on two goroutines,
// when the process may use two cores and n is at least splitMin; f(0, n) otherwise. f must
// write nothing that another range reads or writes.
func split2(n int, f func(lo, hi int)) { splitFrom(n, splitMin, f) }

// splitFrom is split2 for loops whose elements are costlier than a row: two goroutines from
// least elements on.
func splitFrom(n, least int, f func(lo, hi int)) {
	if n < max(2, least) || runtime.GOMAXPROCS(0) < 2 {
		f(0, n)
		return
	}
	m := n / 2
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		f(m, n)
	}()
	f(0, m)
	wg.Wait()
}

// both runs a and b at once on two goroutines when the process may use two cores, one after
// the other otherwise. a and b must share nothing either writes.
func both(a, b func()) {
	if runtime.GOMAXPROCS(0) < 2 {
		a()
		b()
		return
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		b()
	}()
	a()
	wg.Wait()
}
