package vision

import (
	"image"
	"image/color"
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
	"gocv.io/x/gocv"

	"tearcam/template"
)

// Test fixtures drawn with gocv, with truth computed independently of the code under test:
// the sheet is rendered in its own frame, torn by cutting polygons whose areas come from the
// shoelace formula, and warped into a photo by a homography chosen by the test.

var a4 = template.Paper{Name: "a4", WidthMM: 210, HeightMM: 297}

const fixPPM = 5.0 // sheet render resolution, px/mm

// renderSheet draws an off-white sheet with pseudo-handwriting (seeded) at fixPPM.
func renderSheet(t testing.TB, p template.Paper, seed int64) gocv.Mat {
	t.Helper()
	w, h := int(p.WidthMM*fixPPM), int(p.HeightMM*fixPPM)
	m := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(236, 242, 245, 0), h, w, gocv.MatTypeCV8UC3)
	rng := rand.New(rand.NewSource(seed))
	words := []string{"Swordsmanship", "Investigation", "Tea Ceremony", "Hopscotch", "Archery", "Cooking"}
	fonts := []gocv.HersheyFont{gocv.FontHersheyScriptSimplex, gocv.FontHersheyScriptComplex, gocv.FontHersheySimplex}
	for i, wd := range words {
		x := 10 + rng.Float64()*60
		y := 30 + float64(i)*42 + rng.Float64()*10
		scale := 1.6 + rng.Float64()*1.2
		ink := colorRGBA(uint8(20+rng.Intn(40)), uint8(20+rng.Intn(40)), uint8(60+rng.Intn(120)))
		gocv.PutTextWithParams(&m, wd, image.Pt(int(x*fixPPM), int(y*fixPPM)), fonts[i%len(fonts)], scale, ink, 3, gocv.LineAA, false)
	}
	// A few doodles so every region of the sheet has some structure.
	for i := 0; i < 12; i++ {
		c := image.Pt(rng.Intn(w), rng.Intn(h))
		gocv.Circle(&m, c, 8+rng.Intn(30), colorRGBA(40, 40, 90), 2)
	}
	return m
}

// background draws a table: "wood" (stripes), "felt" (green noise), "dark", "light".
func background(t testing.TB, kind string, w, h int, seed int64) gocv.Mat {
	t.Helper()
	rng := rand.New(rand.NewSource(seed))
	var base gocv.Scalar
	switch kind {
	case "wood":
		base = gocv.NewScalar(60, 110, 160, 0)
	case "felt":
		base = gocv.NewScalar(40, 110, 40, 0)
	case "dark":
		base = gocv.NewScalar(35, 30, 30, 0)
	case "light":
		base = gocv.NewScalar(185, 190, 190, 0)
	}
	m := gocv.NewMatWithSizeFromScalar(base, h, w, gocv.MatTypeCV8UC3)
	if kind == "wood" {
		for y := 0; y < h; y += 3 + rng.Intn(6) {
			d := uint8(rng.Intn(30))
			gocv.Line(&m, image.Pt(0, y), image.Pt(w, y+rng.Intn(40)-20), colorRGBA(130-d, 90-d, 50-d/2), 1+rng.Intn(2))
		}
	}
	// Seeded noise (gocv.RandN uses OpenCV's global generator: not reproducible).
	b := m.ToBytes()
	for i := range b {
		v := int(b[i]) + int(rng.NormFloat64()*6)
		b[i] = uint8(max(0, min(255, v)))
	}
	m.Close()
	out, err := gocv.NewMatFromBytes(h, w, gocv.MatTypeCV8UC3, b)
	require.NoError(t, err)
	return out
}

// shot is one synthetic photo with its truth.
type shot struct {
	photo   gocv.Mat
	h       homog // sheet mm -> photo px (truth)
	corners [4]pt // truth corners in photo px
}

// photograph warps sheet (rendered at fixPPM) masked by paper polygons (mm, the remaining
// paper; nil = whole sheet) into a w x h photo on bg, placing the sheet's centre at c with
// rotation rotDeg, scale pxPerMM and a perspective tilt.
func photograph(t testing.TB, sheet gocv.Mat, p template.Paper, paper [][]pt, bg gocv.Mat, c pt, rotDeg, pxPerMM, tilt float64) shot {
	t.Helper()
	W, H := p.WidthMM, p.HeightMM
	var dst [4]pt
	sn, cs := math.Sincos(rotDeg * math.Pi / 180)
	for i, q := range []pt{{0, 0}, {W, 0}, {W, H}, {0, H}} {
		d := q.sub(pt{W / 2, H / 2}).mul(pxPerMM)
		// tilt: the top edge (y<0) shrinks, the bottom grows
		k := 1 + tilt*d.Y/(H*pxPerMM)
		d = pt{d.X * k, d.Y}
		dst[i] = pt{cs*d.X - sn*d.Y, sn*d.X + cs*d.Y}.add(c)
	}
	hm := homographyFrom4([4]pt{{0, 0}, {W, 0}, {W, H}, {0, H}}, dst)
	// sheet px -> mm -> photo
	sp := hm.mul(homog{1 / fixPPM, 0, 0.5 / fixPPM, 0, 1 / fixPPM, 0.5 / fixPPM, 0, 0, 1})
	mat := sp.mat()
	defer mat.Close()
	sz := image.Pt(bg.Cols(), bg.Rows())
	warped := gocv.NewMat()
	defer warped.Close()
	gocv.WarpPerspectiveWithParams(sheet, &warped, mat, sz, gocv.InterpolationLinear, gocv.BorderConstant, color.RGBA{})
	mask := gocv.NewMatWithSize(sheet.Rows(), sheet.Cols(), gocv.MatTypeCV8UC1)
	defer mask.Close()
	if paper == nil {
		paper = [][]pt{{{0, 0}, {W, 0}, {W, H}, {0, H}}}
	}
	var polys [][]image.Point
	for _, pl := range paper {
		var q []image.Point
		for _, v := range pl {
			q = append(q, image.Pt(int(math.Round(v.X*fixPPM*16)), int(math.Round(v.Y*fixPPM*16))))
		}
		polys = append(polys, q)
	}
	pv := gocv.NewPointsVectorFromPoints(polys)
	gocv.FillPolyWithParams(&mask, pv, color.RGBA{255, 255, 255, 255}, gocv.LineAA, 4, image.Pt(0, 0))
	pv.Close()
	wm := gocv.NewMat()
	defer wm.Close()
	gocv.WarpPerspectiveWithParams(mask, &wm, mat, sz, gocv.InterpolationLinear, gocv.BorderConstant, color.RGBA{})
	// Alpha-composite: out = bg*(1-a) + sheet*a, with a soft light gradient on everything.
	out := bg.Clone()
	a := gocv.NewMat()
	defer a.Close()
	wm.ConvertToWithParams(&a, gocv.MatTypeCV32F, 1.0/255, 0)
	a3 := gocv.NewMat()
	defer a3.Close()
	gocv.Merge([]gocv.Mat{a, a, a}, &a3)
	of, wf := gocv.NewMat(), gocv.NewMat()
	defer of.Close()
	defer wf.Close()
	out.ConvertTo(&of, gocv.MatTypeCV32FC3)
	warped.ConvertTo(&wf, gocv.MatTypeCV32FC3)
	one := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(1, 1, 1, 0), a3.Rows(), a3.Cols(), gocv.MatTypeCV32FC3)
	defer one.Close()
	inv := gocv.NewMat()
	defer inv.Close()
	gocv.Subtract(one, a3, &inv)
	gocv.Multiply(of, inv, &of)
	gocv.Multiply(wf, a3, &wf)
	gocv.Add(of, wf, &of)
	of.ConvertTo(&out, gocv.MatTypeCV8UC3)
	s := shot{photo: out, h: hm, corners: dst}
	return s
}

func TestFixtureRenders(t *testing.T) {
	sheet := renderSheet(t, a4, 1)
	defer sheet.Close()
	bg := background(t, "wood", 1600, 1200, 1)
	defer bg.Close()
	s := photograph(t, sheet, a4, nil, bg, pt{800, 600}, 80, 3.5, 0.1)
	defer s.photo.Close()
	require.Equal(t, 1600, s.photo.Cols())
}
