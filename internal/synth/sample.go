package synth

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"math/rand"
	"os"
	"path/filepath"
	"strings"

	"gocv.io/x/gocv"

	"tearcam/template"
)

// RectifyPhoto reads the photo at path and warps the sheet whose corners (TL, TR, BR, BL,
// photo pixels, OpenCV convention) are given into the sheet raster of paper at pxPerMM.
func RectifyPhoto(path string, corners [4]Pt, paper template.Paper, pxPerMM float64) (*image.RGBA, error) {
	src := gocv.IMRead(path, gocv.IMReadColor)
	defer src.Close()
	if src.Empty() {
		return nil, fmt.Errorf("rectify %s: cannot read the photo", path)
	}
	w, h := ceilPx(paper.WidthMM*pxPerMM), ceilPx(paper.HeightMM*pxPerMM)
	// Raster pixel centres (i+0.5)/ppm mm; the corners are the paper's corners.
	mm := [4]Pt{{0, 0}, {paper.WidthMM, 0}, {paper.WidthMM, paper.HeightMM}, {0, paper.HeightMM}}
	toPhoto := homographyFrom4(mm, corners)
	rasterToMM := Homography{1 / pxPerMM, 0, 0.5 / pxPerMM, 0, 1 / pxPerMM, 0.5 / pxPerMM, 0, 0, 1}
	m := toPhoto.mul(rasterToMM)
	mat := gocv.NewMatWithSize(3, 3, gocv.MatTypeCV64F)
	defer mat.Close()
	for i := 0; i < 9; i++ {
		mat.SetDoubleAt(i/3, i%3, m[i])
	}
	dst := gocv.NewMat()
	defer dst.Close()
	// m maps raster -> photo: the inverse map is what WarpPerspective's WARP_INVERSE_MAP takes.
	gocv.WarpPerspectiveWithParams(src, &dst, mat, image.Pt(w, h), gocv.InterpolationLinear|gocv.WarpInverseMap, gocv.BorderReplicate, color.RGBA{})
	rgba := gocv.NewMat()
	defer rgba.Close()
	gocv.CvtColor(dst, &rgba, gocv.ColorBGRToRGBA)
	b := rgba.ToBytes()
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	copy(out.Pix, b)
	return out, nil
}

func ceilPx(v float64) int {
	n := int(v)
	if float64(n) < v-1e-9 {
		n++
	}
	return n
}

// BretaCorners are the sheet corners (TL, TR, BR, BL) of breta_page09.jpg (2460x3280),
// measured by hand on the photo, in its pixels.
var BretaCorners = [4]Pt{{249, 222}, {2330, 231}, {2287, 3134}, {237, 3148}}

// BretaLetters are the letter regions of breta_page09.jpg's four words, measured by hand on
// the sheet rectified to A4, in mm (sheet frame). Cursive letters join: the boundary between
// two letters is drawn through their connecting stroke. A letter's ink is the dark ink inside
// its polygon not claimed by an earlier letter.
var BretaLetters = []SampleSkill{
	{"Text", []SampleLetter{
		{'T', rectPoly(13.75, 12.5, 60, 27.5).join([][2]float64{{45, 27.5}, {45, 56.25}, {25, 56.25}, {25, 48.75}, {32.5, 48.75}, {32.5, 27.5}})},
		{'e', rectPoly(44, 37.5, 63, 56.25)},
		{'x', rectPoly(63, 37.5, 83.75, 57.5)},
		{'t', rectPoly(83.75, 23.75, 106.25, 58)},
	}},
	{"written", []SampleLetter{
		{'w', rectPoly(10, 80, 42, 103.5)},
		{'r', rectPoly(42, 82.5, 51.25, 103.5)},
		{'i', rectPoly(51.25, 79, 60, 103.5)},
		{'t', rectPoly(60, 75.5, 75, 103.5)},
		{'t', rectPoly(75, 75.5, 89, 103.5)},
		{'e', rectPoly(89, 84, 96.5, 103.5)},
		{'n', rectPoly(96.5, 86, 127, 103.5)},
	}},
	{"by", []SampleLetter{
		{'b', rectPoly(11.25, 113.75, 35, 145)},
		{'y', rectPoly(35, 131.25, 60, 160)},
	}},
	{"hand", []SampleLetter{
		{'h', rectPoly(10, 167.5, 47, 203)},
		{'a', rectPoly(47, 181, 68, 203)},
		{'n', rectPoly(68, 181, 97, 203)},
		{'d', rectPoly(97, 168, 138, 203)},
	}},
}

// SampleSkill is a skill measured by hand on a real photo.
type SampleSkill struct {
	Name    string
	Letters []SampleLetter
}

// SampleLetter is one letter's region, a polygon in mm (sheet frame).
type SampleLetter struct {
	Char rune
	Poly poly
}

type poly [][2]float64

func rectPoly(x0, y0, x1, y1 float64) poly {
	return poly{{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}}
}

// join appends the points of a further polygon part (the outline continues through them).
func (p poly) join(q [][2]float64) poly {
	// The first rectangle's last edge is replaced by the detour through q.
	out := append(poly{}, p[:3]...)
	out = append(out, q...)
	out = append(out, p[3])
	return out
}

func (p poly) contains(x, y float64) bool {
	in := false
	for i, j := 0, len(p)-1; i < len(p); j, i = i, i+1 {
		xi, yi, xj, yj := p[i][0], p[i][1], p[j][0], p[j][1]
		if (yi > y) != (yj > y) && x < (xj-xi)*(y-yi)/(yj-yi)+xi {
			in = !in
		}
	}
	return in
}

// SheetFromPhoto builds a Sheet from a real photo: the sheet (corners in photo pixels)
// rectified to paper at pxPerMM, and each hand-measured letter's ink (pixels clearly darker
// than the paper around them, inside its polygon).
func SheetFromPhoto(path string, corners [4]Pt, paper template.Paper, skills []SampleSkill, pxPerMM float64) (*Sheet, error) {
	img, err := RectifyPhoto(path, corners, paper, pxPerMM)
	if err != nil {
		return nil, err
	}
	w, h := img.Bounds().Dx(), img.Bounds().Dy()
	gray := make([]byte, w*h)
	for i := range gray {
		p := img.Pix[4*i : 4*i+3]
		gray[i] = uint8((int(p[0])*299 + int(p[1])*587 + int(p[2])*114) / 1000)
	}
	gm, err := matFromBytes(h, w, gocv.MatTypeCV8U, gray)
	if err != nil {
		return nil, err
	}
	defer gm.Close()
	bg := gocv.NewMat()
	defer bg.Close()
	// The paper's own shade: a wide median-like blur of the page (ink is thin).
	gocv.GaussianBlur(gm, &bg, image.Pt(0, 0), 3*pxPerMM, 3*pxPerMM, gocv.BorderReflect101)
	bb := bg.ToBytes()
	ink := NewMask(w, h)
	for i := range gray {
		if float64(gray[i]) < 0.8*float64(bb[i]) {
			ink.Pix[i] = 1
		}
	}
	sh := &Sheet{Paper: paper, PxPerMM: pxPerMM, Image: img}
	claimed := NewMask(w, h)
	for si, ss := range skills {
		sk := Skill{Name: ss.Name, Font: "handwritten (real photo)", Ink: "real"}
		for li, sl := range ss.Letters {
			minX, minY, maxX, maxY := 1e9, 1e9, -1e9, -1e9
			for _, q := range sl.Poly {
				minX, minY = min(minX, q[0]), min(minY, q[1])
				maxX, maxY = max(maxX, q[0]), max(maxY, q[1])
			}
			box := image.Rect(int(minX*pxPerMM), int(minY*pxPerMM), int(maxX*pxPerMM)+1, int(maxY*pxPerMM)+1).Intersect(image.Rect(0, 0, w, h))
			le := &Letter{Skill: ss.Name, SkillIndex: si, Index: li, Char: sl.Char, Box: box, Ink: make([]uint8, box.Dx()*box.Dy())}
			var corners []Pt
			for y := box.Min.Y; y < box.Max.Y; y++ {
				for x := box.Min.X; x < box.Max.X; x++ {
					i := y*w + x
					if ink.Pix[i] == 0 || claimed.Pix[i] != 0 || !sl.Poly.contains((float64(x)+0.5)/pxPerMM, (float64(y)+0.5)/pxPerMM) {
						continue
					}
					claimed.Pix[i] = 1
					le.Ink[(y-box.Min.Y)*box.Dx()+x-box.Min.X] = 1
					le.InkPx++
					px, py := float64(x), float64(y)
					corners = append(corners, Pt{px, py}, Pt{px + 1, py}, Pt{px + 1, py + 1}, Pt{px, py + 1})
				}
			}
			if le.InkPx == 0 {
				return nil, fmt.Errorf("sheet from photo: letter %q of %q has no ink", sl.Char, ss.Name)
			}
			for _, p := range convexHull(corners) {
				le.Outline = append(le.Outline, Pt{round3(p.X / pxPerMM), round3(p.Y / pxPerMM)})
			}
			sk.Letters = append(sk.Letters, le)
		}
		sh.Skills = append(sh.Skills, sk)
	}
	return sh, nil
}

// SampleSpec says how to make the sample session from a real photo.
type SampleSpec struct {
	Photo   string // the real photo of the fresh sheet (breta_page09.jpg)
	Player  string
	Paper   string
	Corners [4]Pt         // sheet corners in the photo
	Skills  []SampleSkill // hand-measured letters
	Seed    int64
	Tears   []TearPlan
	Angles  []float64 // rotation of the sheet in each after-photo, degrees
	// Size is the size of every photo (the fresh one is the real photo downscaled to it).
	Size image.Point
	// Wood is the table's dark and light colours, matching the real table.
	Wood     [2][3]float64
	GrainDeg float64
}

// BretaSample is the sample session of testdata/images/sample: breta_page09.jpg (a real
// sheet, "Text / written / by / hand", on a wooden table), then a valid use of "hand", a damage
// tear on "Text", a faux pas on "written" (cuts letters only) and the penalty tear it owes
// (the GM names "by").
func BretaSample(photo string) SampleSpec {
	return SampleSpec{
		Photo: photo, Player: "Breta", Paper: "a4", Corners: BretaCorners, Skills: BretaLetters, Seed: 9,
		Tears: []TearPlan{
			{Kind: TearBite, Action: "use", Skill: "hand"},
			{Kind: TearBite, Action: "damage", Skill: "Text"},
			{Kind: TearCutOnly, Action: "use", Skill: "written"},
			{Kind: TearBite, Action: "penalty", Skill: "by"},
		},
		Angles:   []float64{5, 183, -8, 2},
		Size:     image.Pt(1200, 1600),
		Wood:     [2][3]float64{{118, 72, 38}, {196, 140, 84}},
		GrainDeg: 8,
	}
}

// GenerateSample writes the sample session into dir: the fresh sheet (the real photo,
// downscaled), one photo per tear (the real sheet, torn by the generator, moved and
// re-photographed on a matching wooden table), truth.json and session.yaml.
func GenerateSample(dir string, spec SampleSpec) (*Truth, error) {
	paper, err := template.ParsePaper(spec.Paper)
	if err != nil {
		return nil, err
	}
	sh, err := SheetFromPhoto(spec.Photo, spec.Corners, paper, spec.Skills, 8)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewSource(spec.Seed))
	st := NewState(sh)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("sample: %w", err)
	}
	base := strings.ToLower(spec.Player)
	fresh, err := downscalePhoto(spec.Photo, spec.Size, 82)
	if err != nil {
		return nil, err
	}
	p0 := PhotoTruth{File: base + "-0.jpg", Size: [2]int{spec.Size.X, spec.Size.Y}, Background: "wood (real photo)", JPEGQuality: 82}
	src := gocv.IMRead(spec.Photo, gocv.IMReadUnchanged)
	sx, sy := float64(spec.Size.X)/float64(src.Cols()), float64(spec.Size.Y)/float64(src.Rows())
	src.Close()
	var pc [4]Pt
	for i, c := range spec.Corners {
		// Pixel centres: (p + 0.5) * s - 0.5.
		pc[i] = Pt{(c.X+0.5)*sx - 0.5, (c.Y+0.5)*sy - 0.5}
		p0.CornersPx[i] = [2]float64{round3(pc[i].X), round3(pc[i].Y)}
	}
	p0.Homography = homographyFrom4([4]Pt{{0, 0}, {paper.WidthMM, 0}, {paper.WidthMM, paper.HeightMM}, {0, paper.HeightMM}}, pc)
	p0.PxPerMM = round3(pc[1].sub(pc[0]).norm() / paper.WidthMM)
	if err := os.WriteFile(filepath.Join(dir, p0.File), fresh, 0o644); err != nil {
		return nil, fmt.Errorf("sample: %w", err)
	}
	table := WoodTable(rng, spec.Size, spec.Wood, spec.GrainDeg)
	var tears []TearTruth
	for i, tp := range spec.Tears {
		res, err := st.Tear(rng, TearSpec{Kind: tp.Kind, Skill: tp.Skill, Action: tp.Action})
		if err != nil {
			return nil, fmt.Errorf("sample tear %d: %w", i+1, err)
		}
		angle := spec.Angles[i%len(spec.Angles)]
		ph, err := st.Photograph(rng, PhotoSpec{Size: spec.Size, Table: table, Background: "wood", Angle: &angle, MinFill: 0.82, MaxFill: 0.93, JPEGQuality: 82, File: fmt.Sprintf("%s-%d.jpg", base, i+1)})
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(dir, ph.Truth.File), ph.JPEG, 0o644); err != nil {
			return nil, fmt.Errorf("sample: %w", err)
		}
		res.Truth.Photo = ph.Truth
		res.Truth.Expected.Photo = ph.Truth.File
		tears = append(tears, res.Truth)
	}
	t := Truth{
		Schema: TruthSchema, Case: "sample", Seed: spec.Seed,
		Paper:     PaperTruth{Name: paper.Name, WidthMM: paper.WidthMM, HeightMM: paper.HeightMM},
		Template:  TemplateTruth{Name: st.Template.Name, PolygonMM: st.Template.PolygonMM},
		SliverMM2: SliverMM2,
	}
	pt := PlayerTruth{Name: spec.Player, Skills: skillTruths(sh), Sheet: p0, Tears: tears,
		Notes: []string{"fresh sheet: a real photo; letters and corners measured by hand (internal/synth BretaLetters, BretaCorners); after-photos: the real sheet torn by the generator"}}
	if len(tears) > 0 {
		pt.Out = tears[len(tears)-1].Expected.Out
	}
	t.Players = []PlayerTruth{pt}
	if err := WriteTruth(dir, t); err != nil {
		return nil, err
	}
	if err := WriteSession(filepath.Join(dir, "session.yaml"), t); err != nil {
		return nil, err
	}
	return &t, nil
}

// downscalePhoto reads a photo, resizes it to size (area interpolation) and encodes it as JPEG.
func downscalePhoto(path string, size image.Point, quality int) ([]byte, error) {
	src := gocv.IMRead(path, gocv.IMReadColor)
	defer src.Close()
	if src.Empty() {
		return nil, fmt.Errorf("downscale %s: cannot read the photo", path)
	}
	dst := gocv.NewMat()
	defer dst.Close()
	gocv.Resize(src, &dst, size, 0, 0, gocv.InterpolationArea)
	rgba := gocv.NewMat()
	defer rgba.Close()
	gocv.CvtColor(dst, &rgba, gocv.ColorBGRToRGBA)
	img := image.NewRGBA(image.Rect(0, 0, size.X, size.Y))
	copy(img.Pix, rgba.ToBytes())
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: quality}); err != nil {
		return nil, fmt.Errorf("downscale %s: %w", path, err)
	}
	return buf.Bytes(), nil
}
