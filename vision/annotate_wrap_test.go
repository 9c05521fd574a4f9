package vision

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gocv.io/x/gocv"

	"tearcam/judge"
	"tearcam/template"
)

// TestWrapText: long verdict lines are wrapped at spaces so that every line fits the
// annotated image's width (a GM must be able to read the whole reason).
func TestWrapText(t *testing.T) {
	const fs, tk, width = 0.8, 2, 400
	long := strings.Repeat("letter 3 (a) of Tea Ceremony is too close to call; ", 8)
	got := wrapText(long, fs, tk, width)
	assert.Greater(t, len(got), 3, "a 400-character line needs several 400 px lines")
	assert.Equal(t, strings.Fields(long), strings.Fields(strings.Join(got, " ")), "no word lost or split")
	for _, l := range got {
		assert.LessOrEqual(t, gocv.GetTextSize(l, gocv.FontHersheySimplex, fs, tk).X, width, l)
	}
	assert.Equal(t, []string{"short"}, wrapText("short", fs, tk, width))
	assert.Equal(t, []string{""}, wrapText("", fs, tk, width))
	// A word wider than the width stays whole on its own line.
	huge := strings.Repeat("W", 60)
	assert.Equal(t, []string{"a", huge, "b"}, wrapText("a "+huge+" b", fs, tk, width))
}

// TestDashed: a template placement is drawn in dashes of 4 mm with gaps of 2 mm, so about
// two thirds of its outline is inked and the rest is not (a letter's outline is solid).
func TestDashed(t *testing.T) {
	const ppm = 4.0
	img := gocv.NewMatWithSize(200, 200, gocv.MatTypeCV8UC3)
	defer img.Close()
	sq := []judge.Point{{X: 5, Y: 5}, {X: 41, Y: 5}, {X: 41, Y: 41}, {X: 5, Y: 41}} // 144 mm around
	dashed(&img, sq, ppm, colTplPaper, 1)
	inked, along := 0, 0
	for x := 5 * ppm; x <= 41*ppm; x++ { // the top side, y = 5 mm
		along++
		if v := img.GetVecbAt(int(5*ppm), int(x)); v[0] != 0 || v[1] != 0 || v[2] != 0 {
			inked++
		}
	}
	frac := float64(inked) / float64(along)
	assert.InDelta(t, 4.0/6, frac, 0.06, "inked fraction of a side")
	// The dashes start at the first corner and follow each other round the corners.
	assert.NotEqual(t, uint8(0), img.GetVecbAt(int(5*ppm), int(5*ppm))[2])
	assert.Equal(t, uint8(0), img.GetVecbAt(int(5*ppm), int(5*ppm+5*ppm))[2], "5 mm along: in the gap")
}

// TestAnnotatePhoto: a tear whose measurement was refused is shown as the photo itself,
// scaled to the annotated images' width, under Annotate's text band (the verdict and why).
func TestAnnotatePhoto(t *testing.T) {
	photo := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(10, 200, 30, 0), 300, 400, gocv.MatTypeCV8UC3)
	defer photo.Close()
	out, err := AnnotatePhoto(photo, 840, "undecided", []string{"undecided: measurement refused: something covers the sheet"})
	require.NoError(t, err)
	defer out.Close()
	// 400 x 300 scaled to 840 wide is 840 x 630; the band (scale 840/900: 29 px a line) holds
	// a third of a line above the verdict, the verdict and one line: 9 + 2*29 + 29/2 = 81 px.
	assert.Equal(t, 840, out.Cols())
	assert.Equal(t, 630+81, out.Rows())
	assert.Equal(t, []uint8{10, 200, 30}, vec3(out.GetVecbAt(81+315, 420)), "the photo, under the band")
	assert.Equal(t, []uint8{10, 200, 30}, vec3(out.GetVecbAt(out.Rows()-1, 839)))
	assert.Equal(t, []uint8{40, 30, 30}, vec3(out.GetVecbAt(80, 839)), "the band's dark background")
	white := 0
	for x := range 300 {
		for y := range 81 {
			if v := out.GetVecbAt(y, x); v[0] > 200 && v[1] > 200 && v[2] > 200 {
				white++
			}
		}
	}
	assert.Greater(t, white, 200, "the verdict and the reason are written in the band")

	empty := gocv.NewMat()
	defer empty.Close()
	_, err = AnnotatePhoto(empty, 840, "undecided", nil)
	assert.ErrorIs(t, err, ErrBadInput)
}

func vec3(v gocv.Vecb) []uint8 { return []uint8{v[0], v[1], v[2]} }

// TestBandText: the annotated image's text is drawn with OpenCV's Hershey font, which draws
// any character outside printable ASCII as "?" ("mm²" came out "mm??").
func TestBandText(t *testing.T) {
	assert.Equal(t, "removed 3660 mm2 at (28, 190) mm", bandText("removed 3660 mm² at (28, 190) mm"))
	assert.Equal(t, `letter 3 ('n') of "Haggling" - too close...`, bandText("letter 3 (‘n’) of “Haggling” — too close…"))
	assert.Equal(t, "Zauberei, Fechten, Uberleben, Strasse", bandText("Zauberei, Fechten, Überleben, Straße"))
	assert.Equal(t, "? and ?", bandText("魔 and ✓"))
	for _, r := range bandText("mm² × ° ± ≤ ≥ … é ø 魔") {
		assert.True(t, r >= 0x20 && r < 0x7f, "%q", r)
	}
}

// TestBandSmallSheet: on a small sheet's image (105x148 mm at 4 px/mm: 420 px wide) the
// verdict is drawn whole, its top inside the band, and no smaller than on a 495 px image
// (a tester: the verdict was clipped at the top).
func TestBandSmallSheet(t *testing.T) {
	img := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(10, 200, 30, 0), 592, 420, gocv.MatTypeCV8UC3)
	defer img.Close()
	out := withBand(img, "undecided", []string{"undecided: a reason"})
	defer out.Close()
	band := out.Rows() - 592
	rowWhite := func(y int) int {
		n := 0
		for x := range out.Cols() {
			if v := out.GetVecbAt(y, x); v[0] > 200 && v[1] > 200 && v[2] > 200 {
				n++
			}
		}
		return n
	}
	assert.Zero(t, rowWhite(0)+rowWhite(1), "nothing drawn on the band's top rows: the verdict is not clipped")
	top := -1
	for y := range band {
		if rowWhite(y) > 0 {
			top = y
			break
		}
	}
	require.GreaterOrEqual(t, top, 2, "the verdict is drawn in the band")
	// Scale 0.55 at least: the verdict (1.0 x scale) is about 21 x 0.55 = 12 px tall.
	assert.GreaterOrEqual(t, gocv.GetTextSize("undecided", gocv.FontHersheySimplex, 0.55, 2).Y, 11)
}

// TestMarkPlaces: the sheet-frame places a reason names are numbered in the order they first
// appear, a place named twice keeps its number, and text without places is unchanged.
func TestMarkPlaces(t *testing.T) {
	lines, places := markPlaces([]string{
		"undecided: something covers the sheet at (128, 208) mm (1054 mm² ...); 18 mm² at (75.5, 272) mm",
		"again at (128, 208) mm, and (-3, 4) mm off the sheet",
		"letters left: Cooking 7",
	})
	assert.Equal(t, []string{
		"undecided: something covers the sheet at (128, 208) mm [1] (1054 mm² ...); 18 mm² at (75.5, 272) mm [2]",
		"again at (128, 208) mm [1], and (-3, 4) mm [3] off the sheet",
		"letters left: Cooking 7",
	}, lines)
	assert.Equal(t, []pt{{128, 208}, {75.5, 272}, {-3, 4}}, places)
}

// TestAnnotateMarksPlaces: a place the reason names is ringed in cyan on the annotated image,
// centred where the sheet frame puts it, and nothing is ringed when no place is named.
func TestAnnotateMarksPlaces(t *testing.T) {
	_, before, after := topTorn()
	defer before.Close()
	defer after.Close()
	photographAfter(before, after)
	r, err := Measure(before, after, nil, template.Default())
	require.NoError(t, err)
	defer r.Close()
	cyanAround := func(img gocv.Mat, band int, at pt) int {
		ppm := after.PxPerMM
		n := 0
		for a := 0.0; a < 2*math.Pi; a += math.Pi / 36 { // on the 6 mm ring
			c := mmToPx(pt{at.X + 6*math.Cos(a), at.Y + 6*math.Sin(a)}, ppm).img()
			if c.X < 0 || c.Y < 0 || c.X >= img.Cols() || c.Y+band >= img.Rows() {
				continue
			}
			if v := img.GetVecbAt(c.Y+band, c.X); v[0] > 200 && v[1] > 200 && v[2] < 60 {
				n++
			}
		}
		return n
	}
	at := pt{100, 150}
	marked, err := Annotate(after, r, nil, "undecided", []string{"undecided: something at (100, 150) mm"})
	require.NoError(t, err)
	defer marked.Close()
	plain, err := Annotate(after, r, nil, "undecided", []string{"undecided: something somewhere"})
	require.NoError(t, err)
	defer plain.Close()
	assert.Greater(t, cyanAround(marked, marked.Rows()-after.Image.Rows(), at), 60, "of 72 points on the ring")
	assert.Zero(t, cyanAround(plain, plain.Rows()-after.Image.Rows(), at))
}
