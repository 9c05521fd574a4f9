package vision

import (
	"fmt"
	"image"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"gocv.io/x/gocv"

	"tearcam/internal/synth"
	"tearcam/judge"
	"tearcam/template"
)

// looseWhere says where the torn piece lies in the photo after the tear.
type looseWhere int

const (
	looseAgainst looseWhere = iota // laid back against the torn edge, turned and shifted a little
	looseApart                     // on the table, clear of the sheet
	looseBeside                    // on the table, touching an untorn side of the sheet from outside
)

func (w looseWhere) String() string { return [...]string{"against", "apart", "beside"}[w] }

// looseScene is a rendered sheet photographed untorn, torn once (synth's own tear, with its
// exact truth), and photographed again with the removed piece lying loose in the picture.
type looseScene struct {
	fresh   *SheetImage
	photo   gocv.Mat
	truth   synth.TearTruth
	layouts []judge.SkillLayout // the truth's letters in our sheet frame
	looseMM float64             // area of the loose piece over the sheet's removed paper (mm²)
	path    string              // where the after photo was written (VISION_LOOSEDUMP), or ""
}

func (s *looseScene) close() {
	s.fresh.Close()
	s.photo.Close()
}

// renderLoose renders sheet seed, photographs it untorn (Fresh), makes one tear of kind
// (synth.State.Tear) and photographs the remnant with the removed piece lying where says:
// turned by angleDeg about its centroid and moved shiftMM (against: outwards, from the sheet's
// centre through the piece, or inwards over the remnant's edge when negative; apart and
// beside: to the right of the sheet). blank erases the
// piece's writing (a scrap of blank paper). shadow darkens the sheet's paper within 0.6 mm
// of a piece lying on it by that fraction (its edge's shadow).
func renderLoose(t *testing.T, seed int64, kind synth.TearKind, where looseWhere, angleDeg, shiftMM float64, blank bool, shadow float64, table string) *looseScene {
	t.Helper()
	paper, err := template.ParsePaper("a4")
	require.NoError(t, err)
	rng := rand.New(rand.NewSource(seed))
	sh, err := synth.RenderSheet(rng, synth.SheetSpec{Paper: paper})
	require.NoError(t, err)
	st := synth.NewState(sh)
	tab, _ := synth.NewTable(rng, table, image.Pt(1600, 1200))
	spec := synth.PhotoSpec{Table: tab, Background: table}
	if where != looseAgainst {
		spec.MaxFill = 0.72 // room for the piece beside the sheet
	}
	p0, err := st.Photograph(rng, spec)
	require.NoError(t, err)
	m0, err := p0.Mat()
	require.NoError(t, err)
	fresh, err := Fresh(m0, paper)
	m0.Close()
	require.NoError(t, err)
	res, err := st.Tear(rng, synth.TearSpec{Kind: kind, Skill: sh.Skills[int(seed)%len(sh.Skills)].Name})
	require.NoError(t, err)

	ppm := sh.PxPerMM
	W, H := paper.WidthMM, paper.HeightMM
	sw, shh := res.After.W, res.After.H
	// The piece's centroid and the direction it is moved.
	var cx, cy, n float64
	for i, v := range res.Removed.Pix {
		if v != 0 {
			cx += float64(i%sw) + 0.5
			cy += float64(i/sw) + 0.5
			n++
		}
	}
	require.Greater(t, n, 0.0, "the tear removed nothing")
	c := pt{cx / n / ppm, cy / n / ppm}
	var minX, maxX float64 = math.Inf(1), math.Inf(-1)
	for i, v := range res.Removed.Pix {
		if v != 0 {
			x := (float64(i%sw) + 0.5) / ppm
			minX, maxX = math.Min(minX, x), math.Max(maxX, x)
		}
	}
	var shift pt
	cw, ch := sw, shh
	switch where {
	case looseAgainst:
		d := c.sub(pt{W / 2, H / 2})
		shift = d.mul(shiftMM / d.norm())
	case looseApart, looseBeside:
		// To the right of the sheet: its leftmost point shiftMM beyond the right side (beside:
		// shiftMM 0, touching it; the turn may move it a little).
		shift = pt{W + shiftMM - minX + 0.5, 0}
		cw = int(math.Ceil((W + shiftMM + (maxX - minX) + 30) * ppm))
	}
	// The piece's torn rim (within 0.5 mm of the remnant): whitened and fibrous, as
	// synth.PhotographSheet draws a remnant's.
	r := int(math.Max(1, 0.5*ppm))
	rim := make([]bool, sw*shh)
	for i, v := range res.Removed.Pix {
		if v == 0 {
			continue
		}
		x0, y0 := i%sw, i/sw
		for dy := -r; dy <= r && !rim[i]; dy++ {
			for dx := -r; dx <= r; dx++ {
				x, y := x0+dx, y0+dy
				if dx*dx+dy*dy <= r*r && x >= 0 && y >= 0 && x < sw && y < shh && res.After.Pix[y*sw+x] != 0 {
					rim[i] = true
					break
				}
			}
		}
	}
	// The paper's colour: the median of the piece's pixels (for a blank scrap).
	var lum []int
	src := sh.Image
	for i, v := range res.Removed.Pix {
		if v != 0 {
			o := src.PixOffset(i%sw, i/sw)
			lum = append(lum, int(src.Pix[o])+int(src.Pix[o+1])+int(src.Pix[o+2]))
		}
	}
	sort.Ints(lum)
	med := lum[len(lum)/2]
	var paperC [3]uint8
	for i, v := range res.Removed.Pix {
		if v != 0 {
			o := src.PixOffset(i%sw, i/sw)
			if int(src.Pix[o])+int(src.Pix[o+1])+int(src.Pix[o+2]) == med {
				copy(paperC[:], src.Pix[o:o+3])
				break
			}
		}
	}

	img := image.NewRGBA(image.Rect(0, 0, cw, ch))
	mask := synth.NewMask(cw, ch)
	for y := 0; y < shh; y++ {
		copy(img.Pix[y*img.Stride:y*img.Stride+4*sw], src.Pix[y*src.Stride:y*src.Stride+4*sw])
		copy(mask.Pix[y*cw:y*cw+sw], res.After.Pix[y*sw:(y+1)*sw])
	}
	sn, cs := math.Sincos(angleDeg * math.Pi / 180)
	piece := make([]bool, cw*ch)
	looseMM := 0.0
	for y := 0; y < ch; y++ {
		for x := 0; x < cw; x++ {
			q := pt{(float64(x) + 0.5) / ppm, (float64(y) + 0.5) / ppm}.sub(c).sub(shift)
			p := pt{cs*q.X + sn*q.Y, -sn*q.X + cs*q.Y}.add(c) // the inverse turn
			px, py := int(math.Floor(p.X*ppm)), int(math.Floor(p.Y*ppm))
			if px < 0 || py < 0 || px >= sw || py >= shh || res.Removed.Pix[py*sw+px] == 0 {
				continue
			}
			j := y*cw + x
			piece[j] = true
			if x < sw && y < shh && res.Before.Pix[j] != 0 && res.After.Pix[j] == 0 {
				looseMM += 1 / (ppm * ppm)
			}
			mask.Pix[j] = 1
			o, so := img.PixOffset(x, y), src.PixOffset(px, py)
			col := [3]float64{float64(src.Pix[so]), float64(src.Pix[so+1]), float64(src.Pix[so+2])}
			if blank {
				col = [3]float64{float64(paperC[0]), float64(paperC[1]), float64(paperC[2])}
			}
			if rim[py*sw+px] {
				k := 0.35 + 0.4*rng.Float64()
				for i := range col {
					col[i] = col[i]*(1-k) + 252*k
				}
			}
			for i := range col {
				img.Pix[o+i] = uint8(math.Round(col[i]))
			}
			img.Pix[o+3] = 255
		}
	}
	if shadow > 0 {
		sr := int(math.Round(0.6 * ppm))
		for y := 0; y < ch; y++ {
			for x := 0; x < cw; x++ {
				j := y*cw + x
				if piece[j] || mask.Pix[j] == 0 {
					continue
				}
				near := false
				for dy := -sr; dy <= sr && !near; dy++ {
					for dx := -sr; dx <= sr; dx++ {
						xx, yy := x+dx, y+dy
						if xx >= 0 && yy >= 0 && xx < cw && yy < ch && piece[yy*cw+xx] {
							near = true
							break
						}
					}
				}
				if near {
					o := img.PixOffset(x, y)
					for i := 0; i < 3; i++ {
						img.Pix[o+i] = uint8(float64(img.Pix[o+i]) * (1 - shadow))
					}
				}
			}
		}
	}
	p1, err := synth.PhotographSheet(rng, img, mask, ppm, W, H, spec)
	require.NoError(t, err)
	m1, err := p1.Mat()
	require.NoError(t, err)
	s := &looseScene{fresh: fresh, photo: m1, truth: res.Truth, looseMM: looseMM}
	if dir := os.Getenv("VISION_LOOSEDUMP"); dir != "" {
		s.path = fmt.Sprintf("%s/loose-%d-%s-%s.jpg", dir, seed, kind, where)
		require.NoError(t, os.WriteFile(s.path, p1.JPEG, 0o644))
	}
	// Truth mm -> our frame: through the fresh photo.
	toOurs := homog(fresh.H).inv().mul(homog(p0.Truth.Homography))
	for _, sk := range sh.Skills {
		l := judge.SkillLayout{Name: sk.Name, Located: len(sk.Letters), Confidence: 1}
		for _, le := range sk.Letters {
			var o []judge.Point
			for _, v := range le.Outline {
				q := toOurs.apply(pt{v.X, v.Y})
				o = append(o, judge.Point{X: q.X, Y: q.Y})
			}
			l.Letters = append(l.Letters, judge.Letter{Char: string(le.Char), Outline: o})
		}
		s.layouts = append(s.layouts, l)
	}
	return s
}

// looseRuling registers and measures the scene and rules its tear; refused is the reason
// when Register refused the photo.
func looseRuling(t *testing.T, s *looseScene) (m judge.Measurement, r judge.TearRuling, refused string) {
	t.Helper()
	after, err := Register(s.fresh, s.photo)
	if err != nil {
		return m, r, err.Error()
	}
	defer after.Close()
	w, h := after.Mask.Cols(), after.Mask.Rows()
	ss := seamLines(seamRef(s.fresh, w, h, after.PxPerMM), after.Image, s.fresh.Mask.ToBytes(), after.Mask.ToBytes(), w, h, after.PxPerMM)
	for i, sm := range ss {
		if i < 5 {
			t.Logf("seam %v", sm)
		}
	}
	t.Logf("loose seam: %v", looseSeam(ss))
	res, err := Measure(s.fresh, after, s.layouts, template.Default())
	require.NoError(t, err)
	defer res.Close()
	m = res.Measurement
	pr := judge.RulePlayer(judge.PlayerInput{Name: "p", Layouts: s.layouts, Tears: []judge.TearInput{{
		Tear: judge.Tear{Kind: s.truth.Kind, Skill: s.truth.Skill}, Measurement: m,
	}}})
	return m, pr.Tears[0], ""
}

// TestLoosePieceNotSheet lays the torn piece back against its torn edge (turned and shifted
// as a player drops it), or on the table clear of or touching the sheet, in rendered photos,
// and rules the tear: it may be undecided, but a decided ruling must be the exact masks' one.
func TestLoosePieceNotSheet(t *testing.T) {
	type scene struct {
		seed         int64
		kind         synth.TearKind
		where        looseWhere
		angle, shift float64
		blank        bool
		shadow       float64
		table        string
	}
	scenes := []scene{
		{101, synth.TearCorner, looseAgainst, 4, 1.5, true, 0, "wood"},
		{102, synth.TearBite, looseAgainst, -3, 1, true, 0.06, "desk"},
		{104, synth.TearBite, looseAgainst, 2, 0.5, false, 0.06, "dark_cloth"},
		{108, synth.TearBite, looseAgainst, -2, -1.5, true, 0, "desk"}, // over the remnant's edge: no gap
		{105, synth.TearCorner, looseApart, 20, 25, false, 0, "wood"},
		{106, synth.TearBite, looseBeside, 0, 0, true, 0, "desk"},
	}
	if env := os.Getenv("VISION_LOOSE"); env != "" {
		// seed,kind,where,angle,shift,blank,shadow,table
		f := strings.Split(env, ",")
		sd, _ := strconv.Atoi(f[0])
		wh := map[string]looseWhere{"against": looseAgainst, "apart": looseApart, "beside": looseBeside}[f[2]]
		a, _ := strconv.ParseFloat(f[3], 64)
		sf, _ := strconv.ParseFloat(f[4], 64)
		sdw, _ := strconv.ParseFloat(f[6], 64)
		scenes = []scene{{int64(sd), synth.TearKind(f[1]), wh, a, sf, f[5] == "blank", sdw, f[7]}}
	}
	for _, c := range scenes {
		name := fmt.Sprintf("%d-%s-%s", c.seed, c.kind, c.where)
		t.Run(name, func(t *testing.T) {
			s := renderLoose(t, c.seed, c.kind, c.where, c.angle, c.shift, c.blank, c.shadow, c.table)
			defer s.close()
			m, r, refused := looseRuling(t, s)
			want := s.truth.Expected
			t.Logf("truth: %s %v area %.0f mm², %d pieces, fits %v; loose paper over the removed area %.0f mm²",
				want.Verdict, want.Faults, s.truth.RemovedAreaMM2, len(s.truth.Pieces), s.truth.TemplateFits, s.looseMM)
			if refused != "" {
				t.Logf("registration refused: %s", refused)
				return
			}
			t.Logf("measured: area %.0f mm², %d pieces, fits %v, refused %q, doubts %v, uncertain %v",
				m.RemovedAreaMM2, m.Pieces, m.TemplateFits, m.Refused, m.Doubts, m.Uncertain)
			t.Logf("ruled: %s %v %s", r.Verdict, r.Faults, r.UndecidedReason)
			if r.Verdict == judge.Undecided || want.Verdict == judge.Undecided {
				return
			}
			require.Equal(t, want.Verdict, r.Verdict, "a decided ruling must be the exact masks' one")
			require.ElementsMatch(t, want.Faults, r.Faults, "a decided ruling must be the exact masks' one")
		})
	}
}

// TestSeamDiag (VISION_SEAMDIAG=dir[:dir...]) registers every tear photo of the synthetic
// sets to its fresh sheet and logs the longest seams found (seamLines).
func TestSeamDiag(t *testing.T) {
	env := os.Getenv("VISION_SEAMDIAG")
	if env == "" {
		t.Skip("VISION_SEAMDIAG=dir[:dir...] to list seams on synthetic sets")
	}
	for _, set := range strings.Split(env, ":") {
		cases, _ := filepath.Glob(filepath.Join(set, "case-*"))
		if _, err := os.Stat(filepath.Join(set, "truth.json")); err == nil {
			cases = []string{set}
		}
		for _, dir := range cases {
			tr, err := synth.LoadTruth(dir)
			require.NoError(t, err)
			paper := truthPaper(tr)
			for _, pl := range tr.Players {
				if pl.Sheet.CutOff {
					continue
				}
				img, err := ReadImage(filepath.Join(dir, pl.Sheet.File))
				require.NoError(t, err)
				fresh, err := Fresh(img, paper)
				img.Close()
				if err != nil {
					continue
				}
				for _, te := range pl.Tears {
					ph, err := ReadImage(filepath.Join(dir, te.Photo.File))
					require.NoError(t, err)
					after, err := Register(fresh, ph)
					ph.Close()
					if err != nil {
						continue
					}
					w, h := after.Mask.Cols(), after.Mask.Rows()
					ss := seamLines(seamRef(fresh, w, h, after.PxPerMM), after.Image, fresh.Mask.ToBytes(), after.Mask.ToBytes(), w, h, after.PxPerMM)
					var d []string
					for i, s := range ss {
						if i < 3 {
							d = append(d, s.String())
						}
					}
					t.Logf("SEAM %s %s: %d seams %v", filepath.Base(dir), te.Photo.File, len(ss), d)
					if ls := looseSeam(ss); ls != nil {
						t.Logf("LOOSE %s %s %s: %v", set, filepath.Base(dir), te.Photo.File, ls)
					}
					if out := os.Getenv("VISION_SEAMDUMP"); out != "" && len(ss) > 0 && ss[0].lengthMM >= 10 {
						gocv.IMWrite(filepath.Join(out, filepath.Base(set)+"-"+filepath.Base(dir)+"-"+te.Photo.File), after.Image)
					}
					after.Close()
				}
				fresh.Close()
			}
		}
	}
}
