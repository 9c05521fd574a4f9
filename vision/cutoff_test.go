package vision

import (
	"image"
	"strings"

	"gocv.io/x/gocv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"tearcam/judge"
	"tearcam/template"
)

// stripUnknown is the frame layout of a sheet whose part right of x0 mm is unknown.
func stripUnknown(s *SheetImage, x0 float64) []byte {
	w, h := s.Mask.Cols(), s.Mask.Rows()
	u := make([]byte, w*h)
	for y := 0; y < h; y++ {
		for x := int(x0 * s.PxPerMM); x < w; x++ {
			u[y*w+x] = 255
		}
	}
	return u
}

func doubtCounts(m judge.Measurement) map[judge.Quantity]int {
	out := map[judge.Quantity]int{}
	for _, u := range m.Uncertain {
		out[u.About]++
	}
	return out
}

// TestMeasurePartial: the three pixel states (paper, none, unknown) in Measure, on exact masks.
func TestMeasurePartial(t *testing.T) {
	p := template.Paper{Name: "150x200", WidthMM: 150, HeightMM: 200}
	sz := frameSize(p, DefaultPxPerMM)
	ppm := DefaultPxPerMM
	full := []pt{{0, 0}, {150, 0}, {150, 200}, {0, 200}}
	corner := []pt{{0, 0}, {70, 0}, {0, 60}} // 2100 mm², known
	bite := rectPoly(125, 80, 25, 40, 0)     // 1000 mm² at the right edge
	right := rectPoly(110, 0, 40, 200, 0)    // the unknown strip
	pos := func(m []byte, x, y float64) byte { return m[int(y*ppm)*sz.X+int(x*ppm)] }

	t.Run("after cut off", func(t *testing.T) {
		img := gocv0(sz)
		lay := judge.SkillLayout{Name: "Abc", Located: 3, Letters: []judge.Letter{
			inkLetter(&img, "A", rectPoly(10, 10, 6, 8, 0)),   // in the corner: removed
			inkLetter(&img, "b", rectPoly(130, 150, 6, 8, 0)), // in the unknown strip
			inkLetter(&img, "c", rectPoly(50, 150, 6, 8, 0)),  // on the sheet
		}}
		before := &SheetImage{Image: img, Mask: polyMask(sz.X, sz.Y, ppm, [][]pt{full}, nil), PxPerMM: ppm, Paper: p}
		after := sheetFromMask(polyMask(sz.X, sz.Y, ppm, [][]pt{full}, [][]pt{corner, right}), p)
		after.unknown = stripUnknown(after, 110)
		defer before.Close()
		defer after.Close()
		photographAfter(before, after)
		r, err := Measure(before, after, []judge.SkillLayout{lay}, template.Default())
		require.NoError(t, err)
		defer r.Close()
		assert.Equal(t, 1, r.Pieces)
		assert.InDelta(t, polyArea(corner), r.AreaMM2, 0.03*polyArea(corner), "the known piece only")
		assert.True(t, r.EdgeToEdge)
		assert.True(t, r.TemplateFits)
		d := doubtCounts(r.Measurement)
		assert.Equal(t, 1, d[judge.AboutPieces], "the unknown strip may be a second piece: %v", r.Measurement.Uncertain)
		for _, u := range r.Measurement.Uncertain {
			assert.False(t, u.About == judge.AboutTemplateFits && strings.Contains(u.Text, "cut the sheet off"), "the template fits in the known piece: %v", u)
		}
		assert.Zero(t, d[judge.AboutRemoved])
		require.Len(t, r.Measurement.Letters, 1)
		assert.Equal(t, []judge.LetterState{judge.LetterRemoved, judge.LetterUnknown, judge.LetterOnSheet}, r.Measurement.Letters[0].States)
	})

	t.Run("before cut off, filled from after", func(t *testing.T) {
		img := gocv0(sz)
		lay := judge.SkillLayout{Name: "Abc", Located: 3, Letters: []judge.Letter{
			inkLetter(&img, "A", rectPoly(135, 95, 6, 8, 0)),  // in the bite, before unknown
			inkLetter(&img, "b", rectPoly(130, 160, 6, 8, 0)), // unknown before, paper after
			inkLetter(&img, "c", rectPoly(50, 150, 6, 8, 0)),  // on the sheet
		}}
		// Before: the corner already gone, the strip unknown. After: the corner and the bite gone.
		before := &SheetImage{Image: img, Mask: polyMask(sz.X, sz.Y, ppm, [][]pt{full}, [][]pt{corner, right}), PxPerMM: ppm, Paper: p}
		before.unknown = stripUnknown(before, 110)
		after := sheetFromMask(polyMask(sz.X, sz.Y, ppm, [][]pt{full}, [][]pt{corner, bite}), p)
		defer before.Close()
		defer after.Close()
		photographAfter(before, after)
		r, err := Measure(before, after, []judge.SkillLayout{lay}, template.Default())
		require.NoError(t, err)
		defer r.Close()
		assert.Equal(t, 0, r.Pieces, "nothing known removed")
		d := doubtCounts(r.Measurement)
		assert.Equal(t, 1, d[judge.AboutRemoved], "the bite was lost where the before photo did not see: %v", r.Measurement.Uncertain)
		// Paper only shrinks: before's unknown strip is paper wherever after shows paper.
		bm := before.Mask.ToBytes()
		assert.Equal(t, byte(255), pos(bm, 140, 20), "filled from after")
		assert.Equal(t, byte(255), pos(before.unknown, 140, 100), "the bite stays unknown")
		assert.Equal(t, byte(0), pos(before.unknown, 140, 20))
		require.Len(t, r.Measurement.Letters, 1)
		assert.Equal(t, []judge.LetterState{judge.LetterRemovedOrCut, judge.LetterOnSheet, judge.LetterOnSheet}, r.Measurement.Letters[0].States)
	})

	t.Run("after cut off where the paper was already gone", func(t *testing.T) {
		gone := rectPoly(100, 0, 50, 200, 0) // the right 50 mm torn off before
		before := sheetFromMask(polyMask(sz.X, sz.Y, ppm, [][]pt{full}, [][]pt{gone}), p)
		after := sheetFromMask(polyMask(sz.X, sz.Y, ppm, [][]pt{full}, [][]pt{gone, right}), p)
		after.unknown = stripUnknown(after, 110)
		defer before.Close()
		defer after.Close()
		r, err := Measure(before, after, nil, template.Default())
		require.NoError(t, err)
		defer r.Close()
		assert.Equal(t, 0, r.Pieces)
		assert.Empty(t, r.Measurement.Uncertain, "no paper before: none after, nothing open")
		assert.False(t, after.Partial(), "after's unknown filled from before")
	})
}

// TestMeasurePartialPieces: a maybe region changes the count of pieces only when one piece
// is known (a second piece) or when it lies between known pieces (joining them).
func TestMeasurePartialPieces(t *testing.T) {
	p := template.Paper{Name: "150x200", WidthMM: 150, HeightMM: 200}
	sz := frameSize(p, DefaultPxPerMM)
	ppm := DefaultPxPerMM
	full := []pt{{0, 0}, {150, 0}, {150, 200}, {0, 200}}
	right := rectPoly(110, 0, 40, 200, 0) // unknown after
	for _, c := range []struct {
		name   string
		holes  [][]pt
		pieces int
		doubt  bool
	}{
		// two corners on the left, the unknown strip apart from both: several pieces either way
		{"apart", [][]pt{{{0, 0}, {60, 0}, {0, 60}}, {{0, 200}, {60, 200}, {0, 140}}}, 2, false},
		// two bites reaching the strip from the left: removed with it, they are one
		{"between", [][]pt{rectPoly(70, 20, 40, 40, 0), rectPoly(70, 120, 40, 40, 0)}, 2, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := sheetFromMask(polyMask(sz.X, sz.Y, ppm, [][]pt{full}, nil), p)
			after := sheetFromMask(polyMask(sz.X, sz.Y, ppm, [][]pt{full}, append([][]pt{right}, c.holes...)), p)
			after.unknown = stripUnknown(after, 110)
			defer before.Close()
			defer after.Close()
			r, err := Measure(before, after, nil, template.Default())
			require.NoError(t, err)
			defer r.Close()
			assert.Equal(t, c.pieces, r.Pieces)
			assert.Equal(t, c.doubt, doubtCounts(r.Measurement)[judge.AboutPieces] > 0, "%v", r.Measurement.Uncertain)
			assert.InDelta(t, 40*200, r.MaybeMM2, 0.03*40*200, "the strip is open")
		})
	}
}

func TestCombineStates(t *testing.T) {
	L := judge.LetterOnSheet
	for _, c := range []struct{ lo, hi, want judge.LetterState }{
		{L, L, L},
		{L, judge.LetterRemoved, judge.LetterUnknown},
		{judge.LetterGone, judge.LetterRemoved, judge.LetterRemovedOrCut},
		{judge.LetterGone, judge.LetterCut, judge.LetterCut},
		{judge.LetterCut, judge.LetterRemoved, judge.LetterRemovedOrCut},
		{judge.LetterOnSheetOrCut, judge.LetterRemoved, judge.LetterUnknown},
		{judge.LetterAmbiguous, judge.LetterRemoved, judge.LetterUnknown},
	} {
		assert.Equal(t, c.want, combineStates(c.lo, c.hi), "%v + %v", c.lo, c.hi)
	}
}

// gocv0 is a blank paper image of the frame size sz.
func gocv0(sz image.Point) gocv.Mat {
	return gocv.NewMatWithSizeFromScalar(gocv.NewScalar(240, 240, 240, 0), sz.Y, sz.X, gocv.MatTypeCV8UC3)
}

// TestInkMissing: writing of the fresh sheet on what the later mask calls paper must show in
// the later photo; a mask that took the table for paper there shows none.
func TestInkMissing(t *testing.T) {
	p := template.Paper{Name: "150x200", WidthMM: 150, HeightMM: 200}
	sz := frameSize(p, DefaultPxPerMM)
	full := []pt{{0, 0}, {150, 0}, {150, 200}, {0, 200}}
	img := gocv0(sz)
	inkLetter(&img, "W", rectPoly(40, 60, 20, 6, 0)) // a word: 120 mm² of ink
	fresh := &SheetImage{Image: img, Mask: polyMask(sz.X, sz.Y, DefaultPxPerMM, [][]pt{full}, nil), PxPerMM: DefaultPxPerMM, Paper: p}
	defer fresh.Close()

	seen := sheetFromMask(polyMask(sz.X, sz.Y, DefaultPxPerMM, [][]pt{full}, nil), p)
	defer seen.Close()
	inkLetter(&seen.Image, "W", rectPoly(40, 60, 20, 6, 0))
	a, _ := inkMissing(fresh, seen, false)
	assert.Zero(t, a, "the writing shows")

	blank := sheetFromMask(polyMask(sz.X, sz.Y, DefaultPxPerMM, [][]pt{full}, nil), p)
	defer blank.Close()
	a, at := inkMissing(fresh, blank, false)
	assert.InDelta(t, 120, a, 15, "the whole word is missing")
	assert.InDelta(t, 50, at.X, 1)
	assert.InDelta(t, 63, at.Y, 1)
	assert.Greater(t, a, inkMissMinMM2)
}
