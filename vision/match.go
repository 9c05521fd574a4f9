package vision

import (
	"encoding/binary"
	"math/bits"

	"gocv.io/x/gocv"
)

// Feature matching.
//
// ORB descriptors are 256 bits; the match of a photo's descriptor is the fresh sheet's
// descriptor at the smallest Hamming distance, and Lowe's ratio test needs the second
// smallest too. This is what OpenCV's brute-force matcher (NORM_HAMMING, k = 2) computes, done
// here on 64-bit words with the CPU's population count, which is about four times faster than
// the matcher through gocv and keeps the fresh sheet's descriptors as plain Go memory.
// Ties go to the lower index, as in OpenCV's batchDistance (a later candidate replaces a kept
// one only when strictly closer), so the matches are the same.

// descWords is the number of 64-bit words in an ORB descriptor (32 bytes).
const descWords = 4

// descBits copies ORB descriptors (CV_8UC1, one 32-byte row each) into words, descWords per
// descriptor (the bytes in little-endian order: Hamming distances do not depend on the
// order). It returns nil for an empty Mat or one that is not 32 bytes wide. The caller still
// closes m.
func descBits(m gocv.Mat) []uint64 {
	if m.Empty() || m.Cols() != 8*descWords || m.Type() != gocv.MatTypeCV8U {
		return nil
	}
	b := m.ToBytes()
	out := make([]uint64, len(b)/8)
	for i := range out {
		out[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return out
}

// knnMatch is a query descriptor's nearest and second-nearest train descriptors (indices,
// -1 when there are fewer) and their Hamming distances in bits.
type knnMatch struct {
	first, second int
	d1, d2        int
}

// knn2Hamming finds, for every query descriptor, the two nearest train descriptors by Hamming
// distance (both slices descWords words per descriptor), in query order.
func knn2Hamming(query, train []uint64) []knnMatch {
	nq, nt := len(query)/descWords, len(train)/descWords
	out := make([]knnMatch, nq)
	train = train[:nt*descWords]
	split2(nq, func(lo, hi int) { knn2Range(query, train, out[lo:hi], lo) })
	return out
}

// knn2Range is knn2Hamming for the queries from first on, one per element of out.
func knn2Range(query, train []uint64, out []knnMatch, first int) {
	for o := range out {
		i := first + o
		q := query[i*descWords : i*descWords+descWords : i*descWords+descWords]
		q0, q1, q2, q3 := q[0], q[1], q[2], q[3]
		b1, b2, i1, i2 := 1<<30, 1<<30, -1, -1
		for j := 0; j+descWords <= len(train); j += descWords {
			t := train[j : j+descWords : j+descWords]
			d := bits.OnesCount64(q0^t[0]) + bits.OnesCount64(q1^t[1]) + bits.OnesCount64(q2^t[2]) + bits.OnesCount64(q3^t[3])
			if d < b2 {
				if d < b1 {
					b2, i2 = b1, i1
					b1, i1 = d, j/descWords
				} else {
					b2, i2 = d, j/descWords
				}
			}
		}
		out[o] = knnMatch{first: i1, second: i2, d1: b1, d2: b2}
	}
}
