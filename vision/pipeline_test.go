package vision

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gocv.io/x/gocv"

	"tearcam/template"
)

func TestFreshSynthetic(t *testing.T) {
	sheet := renderSheet(t, a4, 1)
	defer sheet.Close()
	cases := []struct {
		bg             string
		rot, ppm, tilt float64
		cx, cy         float64
	}{
		{"wood", 0, 3.5, 0, 800, 600},
		{"wood", 90, 3.5, 0.1, 800, 600},
		{"felt", 33, 2.6, 0.15, 780, 610},
		{"dark", 180, 3.6, 0, 800, 600},
		{"dark", -125, 2.5, 0.2, 700, 500},
		{"light", 10, 3.5, 0.05, 800, 600},
		{"wood", 271, 2.2, 0.25, 900, 650},
	}
	for _, tc := range cases {
		name := fmt.Sprintf("%s_rot%g_tilt%g", tc.bg, tc.rot, tc.tilt)
		t.Run(name, func(t *testing.T) {
			bg := background(t, tc.bg, 1600, 1200, 7)
			defer bg.Close()
			s := photograph(t, sheet, a4, nil, bg, pt{tc.cx, tc.cy}, tc.rot, tc.ppm, tc.tilt)
			defer s.photo.Close()
			if os.Getenv("VISION_DEBUG") != "" {
				gocv.IMWrite("/tmp/v/syn_"+name+".png", s.photo)
			}
			f, err := Fresh(s.photo, a4)
			require.NoError(t, err)
			defer f.Close()
			// Truth corners are the sheet corners in some cyclic order; Fresh picks the
			// orientation, so compare as sets.
			diag := dist(s.corners[0], s.corners[2])
			worst := 0.0
			for _, c := range f.Corners {
				best := math.Inf(1)
				for _, q := range s.corners {
					best = math.Min(best, dist(ptOf(c), q))
				}
				worst = math.Max(worst, best)
			}
			t.Logf("worst corner error %.2f px = %.3f%% of the diagonal", worst, 100*worst/diag)
			assert.Less(t, worst/diag, 0.01)
		})
	}
}

func TestRegisterSynthetic(t *testing.T) {
	sheet := renderSheet(t, a4, 2)
	defer sheet.Close()
	bg := background(t, "wood", 1600, 1200, 3)
	defer bg.Close()
	s0 := photograph(t, sheet, a4, nil, bg, pt{800, 600}, 0, 3.6, 0)
	defer s0.photo.Close()
	fresh, err := Fresh(s0.photo, a4)
	require.NoError(t, err)
	defer fresh.Close()

	// Tear a bite off the right edge: a quadrilateral whose area is known by the shoelace
	// formula; the remaining paper is the sheet minus it.
	bite := []pt{{210, 100}, {150, 120}, {140, 170}, {210, 190}}
	remaining := []pt{{0, 0}, {210, 0}, {210, 100}, {150, 120}, {140, 170}, {210, 190}, {210, 297}, {0, 297}}
	wantArea := polyArea(bite)
	bg2 := background(t, "wood", 1600, 1200, 4)
	defer bg2.Close()
	s1 := photograph(t, sheet, a4, [][]pt{remaining}, bg2, pt{820, 590}, 172, 3.3, 0.12)
	defer s1.photo.Close()
	if os.Getenv("VISION_DEBUG") != "" {
		gocv.IMWrite("/tmp/v/reg_s1.jpg", s1.photo)
	}
	after, err := Register(fresh, s1.photo)
	require.NoError(t, err)
	defer after.Close()
	t.Logf("residual %.3f mm, notes %v", after.ResidualMM, after.Notes)
	assert.Less(t, after.ResidualMM, 1.0)

	// Registration truth: fresh frame -> photo0 is fresh.H; the same sheet point in photo1
	// is s1.h(s0.h^-1(fresh.H(p))). Compare with after.H(p).
	worst := 0.0
	for _, p := range []pt{{0, 0}, {210, 0}, {210, 297}, {0, 297}, {105, 150}} {
		sheetMM := s0.h.inv().apply(homog(fresh.H).apply(p))
		want := s1.h.apply(sheetMM)
		got := homog(after.H).apply(p)
		worst = math.Max(worst, dist(want, got)/3.3)
	}
	t.Logf("worst registration error %.3f mm", worst)
	assert.Less(t, worst, 1.0)

	r, err := Measure(fresh, after, nil, template.Default())
	require.NoError(t, err)
	defer r.Close()
	t.Logf("area %.1f (want %.1f) pieces %d edge %v fits %v paper %v doubts %v", r.AreaMM2, wantArea, r.Pieces, r.EdgeToEdge, r.TemplateFits, r.PaperFits, r.Measurement.Doubts)
	assert.InDelta(t, wantArea, r.AreaMM2, 0.05*wantArea)
	assert.Equal(t, 1, r.Pieces)
	assert.True(t, r.EdgeToEdge)
	assert.True(t, r.TemplateFits)
	assert.True(t, r.PaperFits)
	if os.Getenv("VISION_DEBUG") != "" {
		a, err := Annotate(after, r, nil, "valid", []string{"test"})
		require.NoError(t, err)
		gocv.IMWrite("/tmp/v/ann_reg.png", a)
		a.Close()
	}
}

func TestFreshBadInput(t *testing.T) {
	sheet := renderSheet(t, a4, 1)
	defer sheet.Close()
	bg := background(t, "felt", 1600, 1200, 7)
	defer bg.Close()
	cut := photograph(t, sheet, a4, nil, bg, pt{780, 700}, 33, 3.0, 0.15) // bottom corner at y=1258 > 1200
	defer cut.photo.Close()
	// Two sheets: the same sheet twice, side by side.
	two1 := photograph(t, sheet, a4, nil, bg, pt{400, 600}, 5, 2.2, 0)
	defer two1.photo.Close()
	mask := gocv.NewMatWithSize(1200, 1600, gocv.MatTypeCV8UC1)
	defer mask.Close()
	gocv.Rectangle(&mask, image.Rect(800, 0, 1600, 1200), color.RGBA{255, 255, 255, 255}, -1)
	two2 := photograph(t, sheet, a4, nil, bg, pt{1200, 600}, -8, 2.2, 0)
	defer two2.photo.Close()
	two2.photo.CopyToWithMask(&two1.photo, mask)
	wood := background(t, "wood", 1600, 1200, 9)
	defer wood.Close()
	black := gocv.NewMatWithSize(1200, 1600, gocv.MatTypeCV8UC3)
	defer black.Close()
	white := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(250, 250, 250, 0), 1200, 1600, gocv.MatTypeCV8UC3)
	defer white.Close()
	empty := gocv.NewMat()
	defer empty.Close()
	cases := []struct {
		name  string
		photo gocv.Mat
		want  error
	}{
		{"cut off", cut.photo, ErrSheetCutOff},
		{"two sheets", two1.photo, ErrSeveralSheets},
		{"table only", wood, ErrNoSheet},
		{"black", black, ErrBlankFrame},
		{"white", white, ErrBlankFrame},
		{"empty mat", empty, ErrBadInput},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Fresh(tc.photo, a4)
			if s != nil {
				s.Close()
			}
			assert.ErrorIs(t, err, tc.want)
		})
	}
}

// TestFreshTornSheet: a photo of a sheet already torn, given as the untorn sheet, is refused
// (ErrNoSheet) with a reason that says the sheet has part of it gone, not that there is no
// sheet (a tester took "no sheet of paper found" for a failure to see a plain sheet). A
// photo of the table alone does not say so.
func TestFreshTornSheet(t *testing.T) {
	for _, name := range []string{"breta-2.jpg", "breta-3.jpg", "breta-4.jpg"} {
		photo, err := ReadImage(filepath.Join("..", "testdata", "images", "sample", name))
		require.NoError(t, err)
		s, err := Fresh(photo, a4)
		photo.Close()
		if s != nil {
			s.Close()
		}
		require.ErrorIs(t, err, ErrNoSheet, name)
		assert.Contains(t, err.Error(), "part of it gone (torn already?)", name)
	}
	wood := background(t, "wood", 1600, 1200, 9)
	defer wood.Close()
	_, err := Fresh(wood, a4)
	require.ErrorIs(t, err, ErrNoSheet)
	assert.NotContains(t, err.Error(), "torn")

	// A page filling the photo (real: a strip of handwriting, 1200x160) is not called torn:
	// the photo's edge, not a tear, cuts it.
	page, err := ReadImage(filepath.Join(realDir(t), "handwriting", "gcv_handwritten.jpg"))
	require.NoError(t, err)
	defer page.Close()
	_, err = Fresh(page, a4)
	require.ErrorIs(t, err, ErrNoSheet)
	assert.Contains(t, err.Error(), "runs off the photo's edge")
	assert.NotContains(t, err.Error(), "torn")
}
