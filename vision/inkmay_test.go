package vision

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"tearcam/template"
)

// TestInkMayBeMissing: the one-pass bound inkShownOrCut checks first. The writing shows: no
// ink is missing, and inkMissing finds none either. The writing is gone: the bound lets
// inkMissing decide, and inkShownOrCut returns inkMissing's area (no table to cut: the
// whole word missing on paper with no brightness step). A word missing but for a speck of
// 2 mm² (under inkMissMinMM2): the bound says no, and inkMissing's largest group is under
// inkMissMinMM2 too.
func TestInkMayBeMissing(t *testing.T) {
	p := template.Paper{Name: "150x200", WidthMM: 150, HeightMM: 200}
	sz := frameSize(p, DefaultPxPerMM)
	full := []pt{{0, 0}, {150, 0}, {150, 200}, {0, 200}}
	img := gocv0(sz)
	inkLetter(&img, "W", rectPoly(40, 60, 20, 6, 0))  // a word: 120 mm² of ink
	inkLetter(&img, "I", rectPoly(100, 150, 1, 2, 0)) // a speck: 2 mm²
	fresh := &SheetImage{Image: img, Mask: polyMask(sz.X, sz.Y, DefaultPxPerMM, [][]pt{full}, nil), PxPerMM: DefaultPxPerMM, Paper: p}
	defer fresh.Close()

	seen := sheetFromMask(polyMask(sz.X, sz.Y, DefaultPxPerMM, [][]pt{full}, nil), p)
	defer seen.Close()
	inkLetter(&seen.Image, "W", rectPoly(40, 60, 20, 6, 0))
	inkLetter(&seen.Image, "I", rectPoly(100, 150, 1, 2, 0))
	assert.False(t, inkMayBeMissing(fresh, seen, false))
	a, _ := inkMissing(fresh, seen, false)
	assert.Zero(t, a)

	blank := sheetFromMask(polyMask(sz.X, sz.Y, DefaultPxPerMM, [][]pt{full}, nil), p)
	defer blank.Close()
	assert.True(t, inkMayBeMissing(fresh, blank, false))
	want, _ := inkMissing(fresh, blank, false)
	got, _ := inkShownOrCut(fresh, blank, false)
	assert.Equal(t, want, got)
	assert.Greater(t, got, inkMissMinMM2)

	speck := sheetFromMask(polyMask(sz.X, sz.Y, DefaultPxPerMM, [][]pt{full}, nil), p)
	defer speck.Close()
	inkLetter(&speck.Image, "W", rectPoly(40, 60, 20, 6, 0))
	assert.False(t, inkMayBeMissing(fresh, speck, false))
	a, _ = inkMissing(fresh, speck, false)
	assert.Greater(t, a, 0.0, "the speck is missing")
	assert.Less(t, a, inkMissMinMM2)
}
