package vision

import (
	"bytes"
	"errors"
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

	"tearcam/judge"
	"tearcam/template"
)

// polyMask rasterises polygons (mm) into a w x h CV_8UC1 mask at ppm; the caller closes it.
func polyMask(w, h int, ppm float64, fill [][]pt, holes [][]pt) gocv.Mat {
	m := gocv.NewMatWithSize(h, w, gocv.MatTypeCV8UC1)
	draw := func(ps [][]pt, c color.RGBA) {
		if len(ps) == 0 {
			return
		}
		var v [][]image.Point
		for _, p := range ps {
			var q []image.Point
			for _, x := range p {
				// pixel (i,j) covers [i,i+1)/ppm mm: its centre is mm*ppm-0.5; 4 fractional bits
				q = append(q, image.Pt(int(math.Round((x.X*ppm-0.5)*16)), int(math.Round((x.Y*ppm-0.5)*16))))
			}
			v = append(v, q)
		}
		pv := gocv.NewPointsVectorFromPoints(v)
		gocv.FillPolyWithParams(&m, pv, c, gocv.Line8, 4, image.Point{})
		pv.Close()
	}
	draw(fill, color.RGBA{255, 255, 255, 255})
	draw(holes, color.RGBA{})
	return m
}

func rectPoly(x, y, w, h, deg float64) []pt {
	c := pt{x + w/2, y + h/2}
	s, co := math.Sincos(deg * math.Pi / 180)
	var out []pt
	for _, p := range []pt{{x, y}, {x + w, y}, {x + w, y + h}, {x, y + h}} {
		d := p.sub(c)
		out = append(out, pt{co*d.X - s*d.Y, s*d.X + co*d.Y}.add(c))
	}
	return out
}

// rectFitsRect is the reference: a w x h rectangle fits in an a x b rectangle iff some
// rotation makes its bounding box fit (checked every 0.01°, by plain trigonometry).
func rectFitsRect(w, h, a, b float64) bool {
	for d := 0.0; d <= 90; d += 0.01 {
		s, c := math.Sincos(d * math.Pi / 180)
		if w*c+h*s <= a && w*s+h*c <= b {
			return true
		}
	}
	return false
}

func TestFitTemplate(t *testing.T) {
	tpl := template.Default()
	tri := template.Template{Name: "tri", PolygonMM: [][2]float64{{0, 0}, {40, 0}, {0, 30}}}
	const ppm = 4.0
	W, H := 120, 120 // mm
	cases := []struct {
		name   string
		region [][]pt
		tpl    template.Template
		want   bool
	}{
		// Rectangles: the reference decides (margins of 1 mm or more either way).
		{"40x27", [][]pt{rectPoly(20, 20, 40, 27, 0)}, tpl, rectFitsRect(38.1, 25.4, 40, 27)},
		{"37x30", [][]pt{rectPoly(20, 20, 37, 30, 0)}, tpl, rectFitsRect(38.1, 25.4, 37, 30)},
		{"36x24", [][]pt{rectPoly(20, 20, 36, 24, 0)}, tpl, rectFitsRect(38.1, 25.4, 36, 24)},
		{"40x27 turned 33°", [][]pt{rectPoly(30, 30, 40, 27, 33)}, tpl, true},
		{"24.4 wide strip", [][]pt{rectPoly(10, 10, 100, 24.4, 0)}, tpl, false},
		{"26.4 wide strip turned 61°", [][]pt{rectPoly(10, 40, 100, 26.4, 61)}, tpl, true},
		// A 38.1 x 25.4 rectangle's half-diagonal is 22.90 mm.
		{"circle r=22", [][]pt{circlePoly(60, 60, 22)}, tpl, false},
		{"circle r=24", [][]pt{circlePoly(60, 60, 24)}, tpl, true},
		// Right triangle 40 x 30 template: fits its own shape grown by 1 mm, mirrored too.
		{"triangle mirrored", [][]pt{{{70, 20}, {70, 52}, {28.5, 20}}}, tri, true},
		{"triangle too small", [][]pt{{{20, 20}, {58, 20}, {20, 48}}}, tri, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := polyMask(int(float64(W)*ppm), int(float64(H)*ppm), ppm, tc.region, nil)
			defer m.Close()
			pl, fits, err := FitTemplate(m, ppm, tc.tpl)
			require.NoError(t, err)
			assert.Equal(t, tc.want, fits)
			if fits {
				// Independent check: every vertex of the placed template is inside the region.
				for _, v := range tc.tpl.Apply(pl) {
					q := mmToPx(pt{v[0], v[1]}, ppm).img()
					inside := q.X >= 0 && q.Y >= 0 && q.X < m.Cols() && q.Y < m.Rows() && m.GetUCharAt(q.Y, q.X) != 0
					assert.True(t, inside, "vertex %v of placement %+v", v, pl)
				}
			}
		})
	}
	empty := gocv.NewMat()
	defer empty.Close()
	_, _, err := FitTemplate(empty, ppm, tpl)
	assert.ErrorIs(t, err, ErrBadInput)
}

func circlePoly(cx, cy, r float64) []pt {
	var p []pt
	for i := 0; i < 360; i++ {
		s, c := math.Sincos(float64(i) * math.Pi / 180)
		p = append(p, pt{cx + r*c, cy + r*s})
	}
	return p
}

// sheetFromMask makes a SheetImage (given mask) for Measure tests: its photo shows white
// paper where the mask is paper and a dark table elsewhere, as a photo of a sheet on a table
// does (a removed piece shown in the paper's colour is a doubt: holelook.go).
func sheetFromMask(mask gocv.Mat, paper template.Paper) *SheetImage {
	img := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(60, 70, 90, 0), mask.Rows(), mask.Cols(), gocv.MatTypeCV8UC3)
	white := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(240, 240, 240, 0), mask.Rows(), mask.Cols(), gocv.MatTypeCV8UC3)
	white.CopyToWithMask(&img, mask)
	white.Close()
	return &SheetImage{Image: img, Mask: mask, PxPerMM: DefaultPxPerMM, Paper: paper}
}

// photographAfter paints on after's image what a photo of it shows: the before image (its
// paper and the ink drawn on it) wherever after's mask is paper. Measure checks that ink it
// keeps on the after-sheet shows in the after photo (letterSeenFrac).
func photographAfter(before, after *SheetImage) {
	bi, ai, am := before.Image.ToBytes(), after.Image.ToBytes(), after.Mask.ToBytes()
	for i, v := range am {
		if v != 0 {
			copy(ai[3*i:3*i+3], bi[3*i:3*i+3])
		}
	}
	m, err := gocv.NewMatFromBytes(after.Image.Rows(), after.Image.Cols(), gocv.MatTypeCV8UC3, ai)
	if err != nil {
		panic(err)
	}
	m.CopyTo(&after.Image)
	m.Close()
}

func TestMeasureMasks(t *testing.T) {
	p := template.Paper{Name: "150x200", WidthMM: 150, HeightMM: 200}
	sz := frameSize(p, DefaultPxPerMM)
	full := []pt{{0, 0}, {150, 0}, {150, 200}, {0, 200}}
	corner := []pt{{0, 0}, {80, 0}, {0, 60}}                     // 2400 mm²
	hole := rectPoly(50, 80, 40, 40, 0)                          // 1600 mm²
	bite := []pt{{150, 120}, {100, 130}, {105, 170}, {150, 180}} // shoelace below
	sliver := rectPoly(0, 100, 0.8, 50, 0)                       // under SliverMM wide
	small := rectPoly(70, 195, 8, 5, 0)                          // 40 mm², touches the bottom edge
	cases := []struct {
		name   string
		holes  [][]pt
		area   float64
		pieces int
		edge   bool
		fits   bool
	}{
		{"nothing", nil, 0, 0, false, false},
		{"corner", [][]pt{corner}, polyArea(corner), 1, true, true},
		{"hole", [][]pt{hole}, polyArea(hole), 1, false, true},
		{"two pieces", [][]pt{corner, bite}, polyArea(corner) + polyArea(bite), 2, true, true},
		{"sliver ignored", [][]pt{sliver}, 0, 0, false, false},
		{"small piece", [][]pt{small}, polyArea(small), 1, true, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bm := polyMask(sz.X, sz.Y, DefaultPxPerMM, [][]pt{full}, nil)
			am := polyMask(sz.X, sz.Y, DefaultPxPerMM, [][]pt{full}, tc.holes)
			before, after := sheetFromMask(bm, p), sheetFromMask(am, p)
			defer before.Close()
			defer after.Close()
			r, err := Measure(before, after, nil, template.Default())
			require.NoError(t, err)
			defer r.Close()
			assert.InDelta(t, tc.area, r.AreaMM2, math.Max(0.03*tc.area, 2), "area")
			assert.Equal(t, tc.pieces, r.Pieces, "pieces")
			assert.Equal(t, tc.edge, r.EdgeToEdge, "edge")
			assert.Equal(t, tc.fits, r.TemplateFits, "template fits a piece")
			assert.True(t, r.PaperFits, "template fits the paper left")
			assert.Equal(t, r.Measurement.RemovedAreaMM2, r.AreaMM2)
			assert.Len(t, r.PieceOutlines, r.Pieces)
		})
	}
}

// topTorn is a 150 x 200 mm sheet before and after a tear that removed its top 50 mm (the
// tear line is y = 50 mm), blank paper with no ink. The caller closes both.
func topTorn() (p template.Paper, before, after *SheetImage) {
	p = template.Paper{Name: "150x200", WidthMM: 150, HeightMM: 200}
	sz := frameSize(p, DefaultPxPerMM)
	full := []pt{{0, 0}, {150, 0}, {150, 200}, {0, 200}}
	tear := []pt{{0, 0}, {150, 0}, {150, 50}, {0, 50}}
	bm := polyMask(sz.X, sz.Y, DefaultPxPerMM, [][]pt{full}, nil)
	am := polyMask(sz.X, sz.Y, DefaultPxPerMM, [][]pt{full}, [][]pt{tear})
	return p, sheetFromMask(bm, p), sheetFromMask(am, p)
}

// inkLetter fills box (mm) with dark ink on img (the before-image) and returns it as a
// located letter whose outline is the box.
func inkLetter(img *gocv.Mat, char string, box []pt) judge.Letter {
	var q []image.Point
	var o []judge.Point
	for _, v := range box {
		q = append(q, mmToPx(v, DefaultPxPerMM).img())
		o = append(o, judge.Point{X: v.X, Y: v.Y})
	}
	v := gocv.NewPointsVectorFromPoints([][]image.Point{q})
	gocv.FillPoly(img, v, colorRGBA(20, 20, 20))
	v.Close()
	return judge.Letter{Char: char, Outline: o}
}

func TestLetterStates(t *testing.T) {
	p, before, after := topTorn()
	defer before.Close()
	defer after.Close()
	// Letters: 6 x 8 mm boxes of ink drawn on the before-image.
	boxes := map[string][]pt{
		"R": rectPoly(20, 20, 6, 8, 0),   // wholly in the removed part
		"S": rectPoly(20, 100, 6, 8, 0),  // wholly on the sheet
		"C": rectPoly(40, 46, 6, 8, 0),   // across the tear line y=50
		"A": rectPoly(60, 50.3, 6, 8, 0), // 0.3 mm from the tear, all of it shown in the after photo
	}
	order := []string{"R", "S", "C", "A"}
	var layout judge.SkillLayout
	layout.Name = "RSCA"
	for _, k := range order {
		layout.Letters = append(layout.Letters, inkLetter(&before.Image, k, boxes[k]))
	}
	layout.Located = len(layout.Letters)
	photographAfter(before, after)
	r, err := Measure(before, after, []judge.SkillLayout{layout, {Name: "missing"}}, template.Default())
	require.NoError(t, err)
	defer r.Close()
	require.Len(t, r.Measurement.Letters, 2)
	// "A" lies within the masks' uncertainty of the tear (on the sheet or cut by the masks
	// alone), but the after photo shows all of its ink there: on the sheet (inkEvidence).
	assert.Equal(t, []judge.LetterState{judge.LetterRemoved, judge.LetterOnSheet, judge.LetterCut, judge.LetterOnSheet}, r.Measurement.Letters[0].States)
	assert.Nil(t, r.Measurement.Letters[1].States, "a skill not located has no states")
	// History: measured again with after as the before-sheet, the removed and cut letters are gone.
	after2 := sheetFromMask(after.Mask.Clone(), p)
	defer after2.Close()
	photographAfter(after, after2)
	r2, err := Measure(after, after2, []judge.SkillLayout{layout}, template.Default())
	require.NoError(t, err)
	defer r2.Close()
	assert.Equal(t, judge.LetterGone, r2.Measurement.Letters[0].States[0])
	assert.Equal(t, judge.LetterGone, r2.Measurement.Letters[0].States[2])
	assert.Equal(t, judge.LetterOnSheet, r2.Measurement.Letters[0].States[1])
	// Annotate draws it all without error, on a new Mat.
	a, err := Annotate(after, r, []judge.SkillLayout{layout}, "valid", []string{"letters R removed, C cut"})
	require.NoError(t, err)
	assert.Greater(t, a.Rows(), after.Image.Rows())
	a.Close()
}

func TestReadImageErrors(t *testing.T) {
	dir := t.TempDir()
	good := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(10, 200, 30, 0), 40, 60, gocv.MatTypeCV8UC3)
	defer good.Close()
	jpg, err := gocv.IMEncode(gocv.JPEGFileExt, good)
	require.NoError(t, err)
	defer jpg.Close()
	png, err := gocv.IMEncode(gocv.PNGFileExt, good)
	require.NoError(t, err)
	defer png.Close()
	// A JPEG whose entropy-coded data holds a stray marker (0xFF not followed by 0x00), as a
	// bad copy or a damaged card leaves: libjpeg decodes it in part, with grey blocks.
	noise := gocv.NewMatWithSize(40, 60, gocv.MatTypeCV8UC3)
	defer noise.Close()
	gocv.RandU(&noise, gocv.NewScalar(0, 0, 0, 0), gocv.NewScalar(255, 255, 255, 0))
	noisy, err := gocv.IMEncode(gocv.JPEGFileExt, noise)
	require.NoError(t, err)
	defer noisy.Close()
	damaged := append([]byte(nil), noisy.GetBytes()...)
	sos := bytes.Index(damaged, []byte{0xFF, 0xDA})
	require.Greater(t, sos, 0)
	scan := sos + 2 + (int(damaged[sos+2])<<8 | int(damaged[sos+3]))
	require.Less(t, scan+40, len(damaged)-2, "the noise JPEG has entropy-coded data to damage")
	for i := scan + 10; i < scan+40; i += 3 {
		damaged[i] = 0xFF
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, b, 0o644))
		return p
	}
	cases := []struct {
		name string
		path string
		want error // nil: reads
	}{
		{"jpeg", write("ok.jpg", jpg.GetBytes()), nil},
		{"png", write("ok.png", png.GetBytes()), nil},
		{"truncated jpeg", write("cut.jpg", jpg.GetBytes()[:len(jpg.GetBytes())/2]), ErrTruncated},
		{"truncated png", write("cut.png", png.GetBytes()[:len(png.GetBytes())-20]), ErrTruncated},
		{"damaged jpeg", write("damaged.jpg", damaged), ErrCorrupt},
		// A motion photo: the phone appends an MP4 after the JPEG's end-of-image marker.
		{"jpeg with data after its end", write("motion.jpg", append(append([]byte(nil), jpg.GetBytes()...), []byte("\x00\x00\x00\x18ftypmp42 and a video")...)), nil},
		// Cut inside its scan but followed by appended data holding an end marker: the end
		// marker check passes, and Go's decoder meets the appended bytes inside the scan.
		{"truncated jpeg with data after it", write("cutmotion.jpg", append(append([]byte(nil), noisy.GetBytes()[:len(noisy.GetBytes())/2]...), []byte("\x00\x00ftypmp42\xff\xd9")...)), ErrCorrupt},
		{"text", write("notes.jpg", []byte("this is not a photo\n")), ErrNotImage},
		// An iPhone's HEIC (its ftyp box; OpenCV 4.6 decodes no HEIF): not an image here, and
		// the error says to save it as JPEG.
		{"heic", write("IMG_0001.HEIC", []byte("\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic\x00\x00\x00\x08free")), ErrUnsupportedFormat},
		{"empty", write("empty.jpg", nil), ErrNotImage},
		{"missing", filepath.Join(dir, "nope.jpg"), fs404},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ReadImage(tc.path)
			if tc.want == nil {
				require.NoError(t, err)
				assert.Equal(t, 60, m.Cols())
				m.Close()
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), filepath.Base(tc.path), "the error names the file")
			assert.NotContains(t, err.Error(), "\n")
			if tc.want == ErrUnsupportedFormat {
				assert.ErrorIs(t, err, ErrNotImage)
				assert.Contains(t, err.Error(), "save it as JPEG")
			}
			if tc.want != fs404 {
				assert.ErrorIs(t, err, tc.want)
			} else {
				assert.Contains(t, err.Error(), "not found")
			}
		})
	}
}

var fs404 = errors.New("missing")

// TestRegisterDeterministic: rulings must be byte-identical across runs, so registering the
// same photo twice must give the same homography and the same mask bytes.
func TestRegisterDeterministic(t *testing.T) {
	f := newBenchFixture(t)
	defer f.Close()
	var hs []string
	var masks [][]byte
	for i := 0; i < 2; i++ {
		fresh, err := Fresh(f.fresh.photo, a4)
		require.NoError(t, err)
		after, err := Register(fresh, f.after.photo)
		require.NoError(t, err)
		hs = append(hs, fmt.Sprintf("%v %v %v", fresh.Corners, after.H, after.ResidualMM))
		masks = append(masks, after.Mask.ToBytes())
		after.Close()
		fresh.Close()
	}
	assert.Equal(t, hs[0], hs[1])
	assert.True(t, bytes.Equal(masks[0], masks[1]), "masks differ")
}

// TestRegisterRefusesOtherSheet: a different sheet must be refused, not aligned.
func TestRegisterRefusesOtherSheet(t *testing.T) {
	s1, s2 := renderSheet(t, a4, 11), renderSheet(t, a4, 12)
	defer s1.Close()
	defer s2.Close()
	bg := background(t, "dark", 1600, 1200, 5)
	defer bg.Close()
	p1 := photograph(t, s1, a4, nil, bg, pt{800, 600}, 3, 3.5, 0)
	defer p1.photo.Close()
	p2 := photograph(t, s2, a4, nil, bg, pt{800, 600}, 95, 3.5, 0)
	defer p2.photo.Close()
	fresh, err := Fresh(p1.photo, a4)
	require.NoError(t, err)
	defer fresh.Close()
	after, err := Register(fresh, p2.photo)
	if after != nil {
		after.Close()
	}
	assert.ErrorIs(t, err, ErrRegistration)
}

// TestOddInputsDoNotPanic: noise, tiny, grey and four-channel images give errors, not panics.
func TestOddInputsDoNotPanic(t *testing.T) {
	noise := gocv.NewMatWithSize(480, 640, gocv.MatTypeCV8UC3)
	defer noise.Close()
	b := noise.ToBytes()
	for i := range b {
		b[i] = byte((i*7919 + i/3*104729) % 251) // deterministic clutter
	}
	// NewMatFromBytes shares b with OpenCV without keeping it alive: clone at once, or the
	// garbage collector may free b under the Mat and the clutter changes from run to run.
	shared, err := gocv.NewMatFromBytes(480, 640, gocv.MatTypeCV8UC3, b)
	require.NoError(t, err)
	clutter := shared.Clone()
	shared.Close()
	defer clutter.Close()
	tiny := gocv.NewMatWithSize(20, 20, gocv.MatTypeCV8UC3)
	defer tiny.Close()
	gray := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(128, 0, 0, 0), 300, 400, gocv.MatTypeCV8UC1)
	defer gray.Close()
	bgra := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(30, 60, 90, 255), 300, 400, gocv.MatTypeCV8UC4)
	defer bgra.Close()
	sheet := renderSheet(t, a4, 3)
	defer sheet.Close()
	bg := background(t, "felt", 1600, 1200, 2)
	defer bg.Close()
	ok := photograph(t, sheet, a4, nil, bg, pt{800, 600}, 20, 3.2, 0.05)
	defer ok.photo.Close()
	fresh, err := Fresh(ok.photo, a4)
	require.NoError(t, err)
	defer fresh.Close()
	for name, m := range map[string]gocv.Mat{"clutter": clutter, "tiny": tiny, "gray": gray, "bgra": bgra} {
		t.Run(name, func(t *testing.T) {
			s, err := Fresh(m, a4)
			if s != nil {
				s.Close()
			}
			assert.Error(t, err)
			r, err := Register(fresh, m)
			if r != nil {
				r.Close()
			}
			assert.Error(t, err)
		})
	}
}

// TestFitTemplateNear checks the doubt band: an axis-aligned region d mm larger (or smaller)
// than the 38.1 x 25.4 template in width and height is a near fit when |d| < NearFitMM and a
// clear answer when |d| > NearFitMM (the reference rectFitsRect decides fits).
func TestFitTemplateNear(t *testing.T) {
	tpl := template.Default()
	const ppm = 4.0
	for _, d := range []float64{-2, -1.4, -0.6, -0.3, 0.3, 0.6, 1.4, 2} {
		t.Run(fmt.Sprintf("%+.1fmm", d), func(t *testing.T) {
			m := polyMask(int(80*ppm), int(60*ppm), ppm, [][]pt{rectPoly(20, 15, 38.1+d, 25.4+d, 0)}, nil)
			defer m.Close()
			r, err := FitTemplateDetail(m, ppm, tpl)
			require.NoError(t, err)
			assert.Equal(t, rectFitsRect(38.1, 25.4, 38.1+d, 25.4+d), r.Fits)
			assert.Equal(t, math.Abs(d) < NearFitMM, r.Near)
		})
	}
}
