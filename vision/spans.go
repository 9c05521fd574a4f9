package vision

import (
	"bytes"
	"cmp"
	"math"
	"slices"
	"unsafe"
)

// Spans: a sparse set of a frame's pixels as runs along its rows, for the work that touches a
// narrow band of the frame only (edgemask.go), where a pass over every pixel of the frame
// (or an OpenCV call on the whole frame) would cost more than the band's own work.

// span is a run of pixels of one row: row y, columns x0 to x1-1.
type span struct{ y, x0, x1 int32 }

// spansOf returns the runs of b's bytes (a w x h frame, row-major) equal to v, by row from
// the top, then from the left. Runs never touch: each is as long as it can be.
func spansOf(b []byte, w, h int, v byte) []span {
	var out []span
	for y := 0; y < h; y++ {
		row := b[y*w : (y+1)*w]
		for x := 0; x < w; {
			k := bytes.IndexByte(row[x:], v)
			if k < 0 {
				break
			}
			x0 := x + k
			x1 := x0 + 1
			for x1 < w && row[x1] == v {
				x1++
			}
			out = append(out, span{int32(y), int32(x0), int32(x1)})
			x = x1
		}
	}
	return out
}

// mergeSpans returns the union of two span lists (each in spansOf's order, neither
// overlapping the other), in the same order, runs that touch joined.
func mergeSpans(a, b []span) []span {
	if len(b) == 0 {
		return a
	}
	if len(a) == 0 {
		return b
	}
	all := append(append(make([]span, 0, len(a)+len(b)), a...), b...)
	slices.SortFunc(all, func(p, q span) int {
		if c := cmp.Compare(p.y, q.y); c != 0 {
			return c
		}
		return cmp.Compare(p.x0, q.x0)
	})
	out := all[:1]
	for _, s := range all[1:] {
		if l := &out[len(out)-1]; l.y == s.y && l.x1 == s.x0 {
			l.x1 = s.x1
			continue
		}
		out = append(out, s)
	}
	return out
}

// rowStarts returns, for spans in spansOf's order over h rows, the index of the first span
// of each row (len h+1: the spans of row y are sp[rs[y]:rs[y+1]]).
func rowStarts(sp []span, h int) []int32 {
	rs := make([]int32, h+1)
	k := 0
	for y := 0; y <= h; y++ {
		for k < len(sp) && int(sp[k].y) < y {
			k++
		}
		rs[y] = int32(k)
	}
	return rs
}

// spanParts labels the 8-connected parts of the pixels of sp (spansOf's order, no two spans
// of a row touching unless of different kinds): part[i] is span i's part, 0 to n-1. Spans of
// different kinds (kind[i], when kind is not nil) are never joined. The parts are numbered in
// the order OpenCV's connectedComponents (8-way, its default algorithm, Spaghetti) numbers
// them, from 1: by the first 2x2 block of each part in its scan (rows in pairs from the top,
// blocks from the left), the one block its first scan gives the part's smallest provisional
// label (TestSpanPartsMatchOpenCV).
func spanParts(sp []span, kind []byte) ([]int32, int) {
	parent := make([]int32, len(sp))
	for i := range parent {
		parent[i] = int32(i)
	}
	find := func(i int32) int32 {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	union := func(a, b int32) {
		ra, rb := find(a), find(b)
		if ra < rb {
			parent[rb] = ra
		} else if rb < ra {
			parent[ra] = rb
		}
	}
	// Spans of one row, then of the row above: joined where their columns overlap or touch
	// diagonally.
	prev0, prev1 := 0, 0 // the spans of the previous row
	for i := 0; i < len(sp); {
		y := sp[i].y
		j := i
		for j < len(sp) && sp[j].y == y {
			j++
		}
		if prev1 > prev0 && sp[prev0].y == y-1 {
			k := prev0
			for a := i; a < j; a++ {
				for k < prev1 && sp[k].x1 < sp[a].x0 {
					k++
				}
				for b := k; b < prev1 && sp[b].x0 <= sp[a].x1; b++ {
					if kind == nil || kind[a] == kind[b] {
						union(int32(a), int32(b))
					}
				}
			}
		}
		for a := i + 1; a < j; a++ { // touching spans of one kind (mergeSpans joins the others)
			if sp[a].x0 == sp[a-1].x1 && (kind == nil || kind[a] == kind[a-1]) {
				union(int32(a), int32(a-1))
			}
		}
		prev0, prev1 = i, j
		i = j
	}
	// Each part's first block: (row pair, column pair), smallest over its spans.
	first := make([]int64, len(sp)) // by root
	for i := range first {
		first[i] = math.MaxInt64
	}
	var roots []int32
	for i, s := range sp {
		r := find(int32(i))
		if r == int32(i) {
			roots = append(roots, r)
		}
		first[r] = min(first[r], int64(s.y>>1)<<32|int64(s.x0>>1))
	}
	slices.SortFunc(roots, func(a, b int32) int { return cmp.Compare(first[a], first[b]) })
	num := make([]int32, len(sp)) // by root
	for n, r := range roots {
		num[r] = int32(n)
	}
	part := make([]int32, len(sp))
	for i := range sp {
		part[i] = num[find(int32(i))]
	}
	return part, len(roots)
}

// i8bytes views an int8 slice as bytes (the same memory).
func i8bytes(v []int8) []byte {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), len(v))
}

// besideRow returns, sorted by their first column (they may overlap), runs of row y that
// cover the pixels of row y in sp or 4-connected to one of them: the row's own spans one
// wider at each end, and the spans of the rows above and below (rs: rowStarts(sp, h)). buf
// is reused.
func besideRow(sp []span, rs []int32, y, w, h int, buf []span) []span {
	buf = buf[:0]
	for k := rs[max(y-1, 0)]; k < rs[min(y+2, h)]; k++ {
		s := sp[k]
		if int(s.y) == y {
			s.x0, s.x1 = max(s.x0-1, 0), min(s.x1+1, int32(w))
		}
		buf = append(buf, s)
	}
	slices.SortFunc(buf, func(a, b span) int { return cmp.Compare(a.x0, b.x0) })
	return buf
}
