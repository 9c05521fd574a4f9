package vision

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gocv.io/x/gocv"

	"tearcam/judge"
	"tearcam/template"
)

// TestMissedPaperNextTear: a removed piece doubted as paper the after mask missed
// (markMissed) is unknown on that sheet, so the next tear's photo decides it: shown as paper,
// it was paper (no paper reappearing, nothing of it counted removed by the next tear, its
// letter measured on the sheet again); not shown, it may have been removed by either tear (a
// doubt naming the photo before). Exact masks; tear 1's photo shows the hole white, like
// paper (holeLooksLikePaper).
func TestMissedPaperNextTear(t *testing.T) {
	p := template.Paper{Name: "150x200", WidthMM: 150, HeightMM: 200}
	sz := frameSize(p, DefaultPxPerMM)
	ppm := DefaultPxPerMM
	full := []pt{{0, 0}, {150, 0}, {150, 200}, {0, 200}}
	shade := rectPoly(40, 60, 50, 50, 0)                         // 2500 mm², inside the sheet: "missed" by tear 1's mask
	bite := []pt{{150, 140}, {110, 150}, {115, 185}, {150, 190}} // tear 2's bite at the right edge
	pos := func(m []byte, x, y float64) byte { return m[int(y*ppm)*sz.X+int(x*ppm)] }

	setup := func(t *testing.T, second [][]pt) (fresh, after1, after2 *SheetImage, lay judge.SkillLayout) {
		img := gocv0(sz)
		lay = judge.SkillLayout{Name: "Ab", Located: 2, Letters: []judge.Letter{
			inkLetter(&img, "A", rectPoly(60, 80, 6, 8, 0)),  // in the shade
			inkLetter(&img, "b", rectPoly(20, 170, 6, 8, 0)), // elsewhere on the sheet
		}}
		fresh = &SheetImage{Image: img, Mask: polyMask(sz.X, sz.Y, ppm, [][]pt{full}, nil), PxPerMM: ppm, Paper: p}
		after1 = sheetFromMask(polyMask(sz.X, sz.Y, ppm, [][]pt{full}, [][]pt{shade}), p)
		after2 = sheetFromMask(polyMask(sz.X, sz.Y, ppm, [][]pt{full}, second), p)
		photographAfter(fresh, after1)
		photographAfter(fresh, after2)
		paintPaper(t, after1, shade) // shaded paper the mask missed
		t.Cleanup(func() { fresh.Close(); after1.Close(); after2.Close() })

		// The shade is a hole that looks like the paper around it: Measure doubts it and marks it.
		r1, err := Measure(fresh, after1, []judge.SkillLayout{lay}, template.Default())
		require.NoError(t, err)
		defer r1.Close()
		require.Equal(t, 1, doubtCounts(r1.Measurement)[judge.AboutRemoved], "%v", r1.Measurement.Uncertain)
		require.Contains(t, r1.Measurement.Uncertain[0].Text, "paper the paper mask missed")
		assert.Equal(t, []judge.LetterState{judge.LetterUnknown, judge.LetterOnSheet}, r1.Measurement.Letters[0].States,
			"whether tear 1 took the letter in the doubted piece cannot be told")
		assert.Equal(t, byte(unknownMissed), pos(after1.unknown, 65, 85))
		assert.Equal(t, byte(0), pos(after1.unknown, 20, 20))
		assert.Equal(t, byte(0), pos(after1.Mask.ToBytes(), 65, 85), "the mask itself is not changed")
		return fresh, after1, after2, lay
	}

	t.Run("the next photo shows the paper", func(t *testing.T) {
		_, after1, after2, lay := setup(t, [][]pt{bite})
		r, err := Measure(after1, after2, []judge.SkillLayout{lay}, template.Default())
		require.NoError(t, err)
		defer r.Close()
		assert.Equal(t, 1, r.Pieces)
		assert.InDelta(t, polyArea(bite), r.AreaMM2, 0.03*polyArea(bite), "the bite only")
		assert.Empty(t, r.Measurement.Uncertain)
		g, err := RegrownDetail(after1, after2)
		require.NoError(t, err)
		assert.Zero(t, g.AreaMM2, "paper only shrinks: the shade was paper, none reappears")
		assert.Equal(t, byte(255), pos(after1.Mask.ToBytes(), 65, 85), "filled from the next photo")
		assert.Equal(t, []judge.LetterState{judge.LetterOnSheet, judge.LetterOnSheet}, r.Measurement.Letters[0].States,
			"the letter in the shade is measured again, not kept gone")
	})

	t.Run("the next photo does not show it", func(t *testing.T) {
		_, after1, after2, lay := setup(t, [][]pt{shade, bite})
		r, err := Measure(after1, after2, []judge.SkillLayout{lay}, template.Default())
		require.NoError(t, err)
		defer r.Close()
		assert.Equal(t, 1, r.Pieces, "the known removal: the bite")
		var texts []string
		for _, u := range r.Measurement.Uncertain {
			texts = append(texts, u.Text)
		}
		d := doubtCounts(r.Measurement)
		assert.Equal(t, 1, d[judge.AboutPieces], "the shade may be a second piece of this tear: %v", texts)
		assert.Contains(t, strings.Join(texts, "; "), "where the photo before this tear may have missed paper")
		assert.NotContains(t, strings.Join(texts, "; "), "cut the sheet off")
		assert.NotEqual(t, judge.LetterOnSheet, r.Measurement.Letters[0].States[0], "the letter in the shade is not left")
		assert.Equal(t, judge.LetterOnSheet, r.Measurement.Letters[0].States[1])
	})
}

// TestFillIslands: paper the after mask shows inside a removed piece, touching nothing but
// removed paper, counts as removed (islands.go); paper beside what was already gone, or the
// sheet itself, does not.
func TestFillIslands(t *testing.T) {
	p := template.Paper{Name: "150x200", WidthMM: 150, HeightMM: 200}
	sz := frameSize(p, DefaultPxPerMM)
	ppm := DefaultPxPerMM
	full := []pt{{0, 0}, {150, 0}, {150, 200}, {0, 200}}
	hole := circlePoly(75, 100, 25)       // this tear's hole, 1963 mm²
	island := rectPoly(70, 95, 10, 10, 0) // 100 mm² of "paper" inside it
	old := rectPoly(20, 20, 30, 30, 0)    // a hole from an earlier tear
	ring := rectPoly(10, 10, 50, 50, 0)   // this tear's removal around it, with a ring of paper kept:
	keep := rectPoly(15, 15, 40, 40, 0)   // the paper between the old hole and the removal

	bmM := polyMask(sz.X, sz.Y, ppm, [][]pt{full}, [][]pt{old})
	defer bmM.Close()
	amM := polyMask(sz.X, sz.Y, ppm, [][]pt{full}, [][]pt{old, hole, ring})
	defer amM.Close()
	bm, am := bmM.ToBytes(), amM.ToBytes()
	// polyMask fills the polygons in order and then cuts the holes: redraw the island and the
	// kept ring by hand over the removals.
	at := func(x, y float64) int { return int(y*ppm)*sz.X + int(x*ppm) }
	for y := 0.0; y < 200; y += 1 / ppm {
		for x := 0.0; x < 150; x += 1 / ppm {
			if pointInPoly(pt{x, y}, island) || (pointInPoly(pt{x, y}, keep) && !pointInPoly(pt{x, y}, old)) {
				am[at(x, y)] = 255
			}
		}
	}
	require.Equal(t, byte(255), am[at(75, 100)], "island drawn")
	require.Equal(t, byte(0), am[at(60, 100)], "hole around it")
	require.Equal(t, byte(255), am[at(17, 30)], "kept ring drawn")

	filled := fillIslands(bm, am, sz.X, sz.Y)
	require.NotNil(t, filled)
	n := 0
	for _, v := range filled {
		if v != 0 {
			n++
		}
	}
	assert.InDelta(t, polyArea(island), float64(n)/(ppm*ppm), 0.1*polyArea(island), "the island, and only it")
	assert.Equal(t, byte(0), am[at(75, 100)], "the island is removed paper")
	assert.Equal(t, byte(255), am[at(17, 30)], "paper beside an earlier hole is not an island of this tear")
	assert.Equal(t, byte(255), am[at(140, 190)], "the sheet stays")

	// No island: nothing filled.
	assert.Nil(t, fillIslands(bm, am, sz.X, sz.Y))
}

// TestRegrownBeforeMissedPaper: paper a later photo shows on what the tear before removed is
// that tear's mask missing paper when that tear's photo shows it in the paper's colour
// (RegrownPatch.BeforeMissedPaper), and photos out of order when it showed the table there.
// Exact masks; photos showing the table off the mask (sheetFromMask).
func TestRegrownBeforeMissedPaper(t *testing.T) {
	p := template.Paper{Name: "150x200", WidthMM: 150, HeightMM: 200}
	sz := frameSize(p, DefaultPxPerMM)
	ppm := DefaultPxPerMM
	full := []pt{{0, 0}, {150, 0}, {150, 200}, {0, 200}}
	corner := []pt{{0, 170}, {30, 200}, {0, 200}}                  // 450 mm²: missed, or torn off
	bite := []pt{{150, 40}, {120, 50}, {125, 90}, {150, 100}}      // tear 1's real bite
	second := []pt{{150, 140}, {120, 150}, {125, 180}, {150, 190}} // tear 2's bite
	for _, tc := range []struct {
		name          string
		cornerIsTable bool // tear 1's photo shows the table in the corner: it was torn off
		missed        bool
	}{
		{"tear 1's photo shows paper there: its mask missed it", false, true},
		{"tear 1's photo shows the table there: photos out of order", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fresh := sheetFromMask(polyMask(sz.X, sz.Y, ppm, [][]pt{full}, nil), p)
			after1 := sheetFromMask(polyMask(sz.X, sz.Y, ppm, [][]pt{full}, [][]pt{corner, bite}), p)
			after2 := sheetFromMask(polyMask(sz.X, sz.Y, ppm, [][]pt{full}, [][]pt{bite, second}), p)
			defer fresh.Close()
			defer after1.Close()
			defer after2.Close()
			if !tc.cornerIsTable {
				paintPaper(t, after1, corner) // sheetFromMask shows the table off the mask
			}
			r1, err := Measure(fresh, after1, nil, template.Default())
			require.NoError(t, err)
			r1.Close()
			require.Equal(t, 2, r1.Pieces, "tear 1 measured with the corner as a second piece")
			r2, err := Measure(after1, after2, nil, template.Default())
			require.NoError(t, err)
			r2.Close()
			g, err := RegrownDetail(after1, after2)
			require.NoError(t, err)
			assert.InDelta(t, polyArea(corner), g.AreaMM2, 0.1*polyArea(corner), "the corner shows again")
			assert.False(t, g.TableTakenForPaper)
			assert.Equal(t, tc.missed, g.BeforeMissedPaper)
		})
	}
}

// paintPaper paints the paper's colour (sheetFromMask's) on s's image inside the polygons
// (mm).
func paintPaper(t *testing.T, s *SheetImage, polys ...[]pt) {
	paint(t, s, [3]byte{240, 240, 240}, polys...)
}

func paint(t *testing.T, s *SheetImage, bgr [3]byte, polys ...[]pt) {
	m := polyMask(s.Image.Cols(), s.Image.Rows(), s.PxPerMM, polys, nil)
	defer m.Close()
	b, mb := s.Image.ToBytes(), m.ToBytes()
	for i, v := range mb {
		if v != 0 {
			copy(b[3*i:3*i+3], bgr[:])
		}
	}
	img, err := gocv.NewMatFromBytes(s.Image.Rows(), s.Image.Cols(), gocv.MatTypeCV8UC3, b)
	require.NoError(t, err)
	img.CopyTo(&s.Image)
	img.Close()
}

// TestSecondPieceLooksLikePaper: of two removed pieces at the sheet's edge, one the photo
// shows in the paper's colour may be paper the mask missed: the count of pieces is in doubt,
// the removal measured stands; shown as the table, both are pieces for certain.
func TestSecondPieceLooksLikePaper(t *testing.T) {
	p := template.Paper{Name: "150x200", WidthMM: 150, HeightMM: 200}
	sz := frameSize(p, DefaultPxPerMM)
	ppm := DefaultPxPerMM
	full := []pt{{0, 0}, {150, 0}, {150, 200}, {0, 200}}
	corner := []pt{{0, 170}, {30, 200}, {0, 200}}
	bite := []pt{{150, 40}, {120, 50}, {125, 90}, {150, 100}}
	for _, cornerIsTable := range []bool{false, true} {
		fresh := sheetFromMask(polyMask(sz.X, sz.Y, ppm, [][]pt{full}, nil), p)
		after := sheetFromMask(polyMask(sz.X, sz.Y, ppm, [][]pt{full}, [][]pt{corner, bite}), p)
		if !cornerIsTable {
			paintPaper(t, after, corner) // sheetFromMask shows the table off the mask
		}
		r, err := Measure(fresh, after, nil, template.Default())
		require.NoError(t, err)
		assert.Equal(t, 2, r.Pieces)
		assert.InDelta(t, polyArea(corner)+polyArea(bite), r.AreaMM2, 0.03*(polyArea(corner)+polyArea(bite)))
		d := doubtCounts(r.Measurement)
		assert.Zero(t, d[judge.AboutRemoved], "the removal stands: %v", r.Measurement.Uncertain)
		if cornerIsTable {
			assert.Zero(t, d[judge.AboutPieces], "%v", r.Measurement.Uncertain)
		} else {
			require.Equal(t, 1, d[judge.AboutPieces], "%v", r.Measurement.Uncertain)
			for _, u := range r.Measurement.Uncertain {
				if u.About == judge.AboutPieces {
					assert.Contains(t, u.Text, "452 mm² at (14, 186) mm: colour within 0% of it")
				}
			}
		}
		r.Close()
		fresh.Close()
		after.Close()
	}
}
