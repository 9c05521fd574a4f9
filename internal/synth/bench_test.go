package synth

import (
	"image"
	"math/rand"
	"testing"
)

// benchState renders one sheet for the benchmarks (outside the timer).
func benchState(b *testing.B) *State {
	b.Helper()
	sh, err := RenderSheet(rand.New(rand.NewSource(1)), SheetSpec{})
	if err != nil {
		b.Fatal(err)
	}
	return NewState(sh)
}

func benchPhotograph(b *testing.B, size image.Point) {
	st := benchState(b)
	table, _ := NewTable(rand.New(rand.NewSource(2)), "wood", size)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := st.Photograph(rand.New(rand.NewSource(int64(i))), PhotoSpec{Size: size, Table: table}); err != nil {
			b.Fatal(err)
		}
	}
}

func benchTear(b *testing.B, kind TearKind) {
	st := benchState(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		fresh := NewState(st.Sheet)
		if _, err := fresh.Tear(rand.New(rand.NewSource(int64(i))), TearSpec{Kind: kind, Skill: st.Sheet.Skills[0].Name}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPhotograph800x600(b *testing.B)   { benchPhotograph(b, image.Pt(800, 600)) }
func BenchmarkPhotograph1600x1200(b *testing.B) { benchPhotograph(b, image.Pt(1600, 1200)) }
func BenchmarkTearBite(b *testing.B)            { benchTear(b, TearBite) }
func BenchmarkTearHole(b *testing.B)            { benchTear(b, TearHole) }

func BenchmarkFitTemplate(b *testing.B) {
	const ppm = 8
	m := NewMask(60*ppm, 45*ppm)
	for i := range m.Pix {
		m.Pix[i] = 1
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := FitTemplate(m, ppm, templateDefault()); err != nil {
			b.Fatal(err)
		}
	}
}
