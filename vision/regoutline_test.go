package vision

import (
	"errors"
	"image"
	"math"
	"math/rand"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"gocv.io/x/gocv"

	"tearcam/internal/synth"
	"tearcam/template"
)

// outlineCase is a rendered sheet whose writing is erased from the bands of height (mm)
// blank ([from, to) each), photographed untorn (fresh), after a first tear (prev: a bite
// whose torn edge lies along bite, 255 removed) and as a remnant with no writing at all:
// the paper below y = keep(x) mm.
type outlineCase struct {
	seed  int64
	blank [][2]float64
	// bite reports whether the first tear removed sheet point (x, y) mm.
	bite func(x, y float64) bool
	// keep is the remnant's torn top edge (mm) at x.
	keep  func(x float64) float64
	table string
}

// wobble is a torn edge's wander (mm) along s: a sum of two sines of the seed's phases.
func wobble(seed int64, amp float64) func(s float64) float64 {
	r := rand.New(rand.NewSource(seed))
	a1, a2, p1, p2 := amp*(0.6+0.4*r.Float64()), amp*(0.3+0.3*r.Float64()), 6*r.Float64(), 6*r.Float64()
	return func(s float64) float64 { return a1*math.Sin(s/17+p1) + a2*math.Sin(s/5+p2) }
}

// renderOutlineCase renders c: the fresh sheet (Fresh), the previous photo registered to it,
// and the remnant's photo with its truth (fresh photo and remnant photo: sheet mm -> photo
// px). The caller closes fresh, prev and photo.
func renderOutlineCase(t *testing.T, c outlineCase) (fresh, prev *SheetImage, photo gocv.Mat, th0, th homog, paper template.Paper) {
	t.Helper()
	paper, err := template.ParsePaper("148x210")
	require.NoError(t, err)
	rng := rand.New(rand.NewSource(c.seed))
	sh, err := synth.RenderSheet(rng, synth.SheetSpec{Paper: paper, Ruled: -1})
	require.NoError(t, err)
	ppm := sh.PxPerMM
	// Erase the letters whose box centre lies in a blank band: their box (and 3 px around
	// it) takes the paper's median colour there.
	for _, l := range sh.Letters() {
		cy := float64(l.Box.Min.Y+l.Box.Max.Y) / 2 / ppm
		in := false
		for _, b := range c.blank {
			in = in || (cy >= b[0] && cy < b[1])
		}
		if !in {
			continue
		}
		r := l.Box.Inset(-3).Intersect(sh.Image.Bounds())
		var vs [3][]int
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				i := sh.Image.PixOffset(x, y)
				for k := 0; k < 3; k++ {
					vs[k] = append(vs[k], int(sh.Image.Pix[i+k]))
				}
			}
		}
		var med [3]uint8
		for k := range vs {
			sort.Ints(vs[k])
			med[k] = uint8(vs[k][len(vs[k])*3/4]) // paper dominates the box's brighter pixels
		}
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				i := sh.Image.PixOffset(x, y)
				copy(sh.Image.Pix[i:i+3], med[:])
			}
		}
	}
	st := synth.NewState(sh)
	tab, _ := synth.NewTable(rng, c.table, image.Pt(1200, 900))
	shoot := func() (gocv.Mat, homog) {
		p, err := st.Photograph(rng, synth.PhotoSpec{Size: image.Pt(1200, 900), Table: tab, Background: c.table})
		require.NoError(t, err)
		m, err := p.Mat()
		require.NoError(t, err)
		return m, homog(p.Truth.Homography)
	}
	cut := func(gone func(x, y float64) bool) {
		for y := 0; y < st.Paper.H; y++ {
			for x := 0; x < st.Paper.W; x++ {
				if gone((float64(x)+0.5)/ppm, (float64(y)+0.5)/ppm) {
					st.Paper.Pix[y*st.Paper.W+x] = 0
				}
			}
		}
	}
	m0, th0 := shoot()
	fresh, err = Fresh(m0, paper)
	m0.Close()
	require.NoError(t, err)
	cut(c.bite)
	m1, _ := shoot()
	prev, err = Register(fresh, m1)
	m1.Close()
	require.NoError(t, err, "the previous photo keeps writing and registers on it")
	cut(func(x, y float64) bool { return y < c.keep(x) })
	photo, th = shoot()
	return fresh, prev, photo, th0, th, paper
}

// TestRegisterOutline: a remnant with no writing, rendered by the synthetic generator,
// registers to the previous photo by its outline (its straight sides and the first tear's
// edge, which the previous photo shows) within MaxResidualMM of the generator's truth on its
// paper; and a blank strip whose straight sides fit the previous paper in two places (the
// sheet's blank bottom, where it was, and its blank top, turned half a turn) is refused as
// ambiguous, never registered.
func TestRegisterOutline(t *testing.T) {
	edge := wobble(3, 2.5)
	cases := []struct {
		name      string
		c         outlineCase
		ambiguous bool
	}{
		{"bite edge", outlineCase{seed: 11, blank: [][2]float64{{105, 215}},
			// the first tear: a bite from the right side, its edge reaching 50 mm in
			bite: func(x, y float64) bool {
				return y > 120+edge(x) && y < 175+edge(x+40) && x > 148-50+2*math.Sin(y/9)
			},
			keep: func(x float64) float64 { return 130 + wobble(5, 3)(x) }, table: "dark_cloth"}, false},
		{"symmetric strip", outlineCase{seed: 12, blank: [][2]float64{{0, 75}, {140, 215}},
			// the first tear: a bite from the left side, in the written middle
			bite: func(x, y float64) bool { return y > 85+edge(x) && y < 125+edge(x+40) && x < 40+2*math.Sin(y/9) },
			keep: func(x float64) float64 { return 150 + wobble(6, 3)(x) }, table: "dark_cloth"}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fresh, prev, photo, th0, th, paper := renderOutlineCase(t, tc.c)
			defer fresh.Close()
			defer prev.Close()
			defer photo.Close()
			// No writing on the remnant: the ink alone cannot align it with the fresh sheet.
			t1 := time.Now()
			_, err := Register(fresh, photo)
			t.Logf("refused by the fresh sheet in %v", time.Since(t1))
			require.ErrorIs(t, err, ErrRegistration)
			var why error
			outlineRefusedHook = func(err error) { why = err }
			inkHook = func(a, b float64) { t.Logf("ink %.1f %.1f", a, b) }
			outlineHook = func(hs []homog, ss []float64) {
				F := homog(fresh.H).inv().mul(th0) // truth mm -> frame mm
				for k := range hs {
					e := 0.0
					for _, q := range []pt{{10, 200}, {138, 200}, {74, 185}} {
						e = math.Max(e, dist(hs[k].inv().apply(th.apply(q)), F.apply(q)))
					}
					t.Logf("cand %d %.1f err %.2f", k, ss[k], e)
				}
			}
			defer func() { outlineRefusedHook = nil }()
			t0 := time.Now()
			out, err := Register(prev, photo)
			t.Logf("registered to the previous photo in %v", time.Since(t0))
			if tc.ambiguous {
				require.ErrorIs(t, err, ErrRegistration)
				require.Nil(t, out)
				require.Error(t, why)
				require.Contains(t, why.Error(), "two poses", "refused as ambiguous")
				// The refusal returned says why the outline gave no pose, after the ink's reason.
				require.Contains(t, err.Error(), "; by the outline: two poses", "the outline's reason in the refusal")
				return
			}
			require.NoError(t, err, "outline refusal: %v", why)
			defer out.Close()
			require.True(t, strings.Contains(strings.Join(out.Notes, "; "), "registered by its outline"), "%v", out.Notes)
			// The generator's truth: every 10 mm of the remnant's paper within MaxResidualMM.
			e := synthRegErr(fresh, out, th0, th, paper)
			t.Logf("true error %.2f mm, %v", e, out.Notes)
			require.Less(t, e, MaxResidualMM)
		})
	}
}

// TestRegisterOutlineOnlyAfterInk: registerOutline is tried only against a registered sheet
// (the previous photo), never against the fresh sheet, whose paper is the whole frame.
func TestRegisterOutlineOnlyAfterInk(t *testing.T) {
	fresh, prev, photo, _, _, _ := renderOutlineCase(t, outlineCase{seed: 11, blank: [][2]float64{{105, 215}},
		bite: func(x, y float64) bool { return y > 120 && y < 175 && x > 100 },
		keep: func(x float64) float64 { return 130 }, table: "dark_cloth"})
	defer fresh.Close()
	defer prev.Close()
	defer photo.Close()
	out, err := registerOutline(fresh, photo, nil)
	require.Nil(t, out)
	require.ErrorIs(t, err, ErrRegistration)
	require.True(t, errors.Is(err, ErrRegistration) && strings.Contains(err.Error(), "no whole registered sheet"), strconv.Quote(err.Error()))
}
