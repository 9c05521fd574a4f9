package ocr

import (
	"math/rand"
	"testing"

	"gocv.io/x/gocv"

	"tearcam/internal/synth"
)

// benchLocate times Locate of six skills on one rendered sheet (A4 at 4 px/mm, the vision
// package's rectified resolution) with a Locator of the given workers, setup outside the timer.
func benchLocate(b *testing.B, seed int64, workers int) {
	sh, err := synth.RenderSheet(rand.New(rand.NewSource(seed)), synth.SheetSpec{PxPerMM: 4})
	if err != nil {
		b.Fatal(err)
	}
	m := sheetMat(b, sh)
	defer m.Close()
	empty := gocv.NewMat()
	defer empty.Close()
	l, err := NewLocator(workers)
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := l.Locate(m, empty, sh.PxPerMM, sh.SkillNames()); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLocateSheet1(b *testing.B) { benchLocate(b, 1, 2) }
func BenchmarkLocateSheet2(b *testing.B) { benchLocate(b, 2, 2) }
func BenchmarkLocateSheet9(b *testing.B) { benchLocate(b, 9, 2) }
