package vision

import (
	"fmt"
	"image"
	"math"
	"math/rand"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gocv.io/x/gocv"

	"tearcam/internal/synth"
	"tearcam/template"
)

var letterPaper = template.Paper{Name: "letter", WidthMM: 215.9, HeightMM: 279.4}

// paleDesk is a plain desk of colour rgb (RGB) with four broad swells of light (about 5%),
// pixel noise (1.8%) and, when spotR > 0, a bright patch of table (+spotK of the colour,
// Gaussian of radius spotR px) centred at spot.
func paleDesk(rng *rand.Rand, size image.Point, rgb [3]float64, spot pt, spotR, spotK float64) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, size.X, size.Y))
	type swell struct{ x, y, r, k float64 }
	var sw []swell
	for i := 0; i < 4; i++ {
		sw = append(sw, swell{rng.Float64() * float64(size.X), rng.Float64() * float64(size.Y), (0.2 + 0.3*rng.Float64()) * float64(size.X), 0.05 * rng.NormFloat64()})
	}
	for y := 0; y < size.Y; y++ {
		for x := 0; x < size.X; x++ {
			v := 1.0
			for _, b := range sw {
				d := math.Hypot(float64(x)-b.x, float64(y)-b.y) / b.r
				v += b.k * math.Exp(-d*d)
			}
			if spotR > 0 {
				d := math.Hypot(float64(x)-spot.X, float64(y)-spot.Y) / spotR
				v += spotK * math.Exp(-d*d)
			}
			v += 0.018 * rng.NormFloat64()
			i := img.PixOffset(x, y)
			for k := 0; k < 3; k++ {
				img.Pix[i+k] = uint8(clampf(rgb[k]*v, 0, 255))
			}
			img.Pix[i+3] = 255
		}
	}
	return img
}

// paleSpec says how renderPale photographs a ruled US-letter sheet (internal/synth,
// 1600x1200, JPEG quality jpegQ, 0: 70) on a pale desk (paleDesk): the sheet is rendered from seed,
// its paper multiplied by tint (RGB), and photographed with the generator's random placement,
// light and shadow from seed*7919+1, filling minFill to minFill+0.05 (at most 0.97) of the
// frame; with spotR > 0 a bright patch of desk (+spotK, radius spotR px) lies at the sheet's
// corner spotAt.
type paleSpec struct {
	seed         int64
	desk, tint   [3]float64
	minFill      float64
	spotAt       int
	spotR, spotK float64
	jpegQ        int
}

// renderPale renders s; it returns the JPEG and the sheet's corners from the truth. A few
// seconds.
func renderPale(s paleSpec) ([]byte, [4]pt) {
	rng := rand.New(rand.NewSource(s.seed))
	sh, err := synth.RenderSheet(rng, synth.SheetSpec{Paper: letterPaper, Ruled: 1, PxPerMM: 6})
	if err != nil {
		panic(err)
	}
	for i := 0; i < len(sh.Image.Pix); i += 4 {
		for k := 0; k < 3; k++ {
			sh.Image.Pix[i+k] = uint8(clampf(float64(sh.Image.Pix[i+k])*s.tint[k], 0, 255))
		}
	}
	st := synth.NewState(sh)
	size := image.Pt(1600, 1200)
	if s.jpegQ == 0 {
		s.jpegQ = 70
	}
	spec := synth.PhotoSpec{Size: size, MinFill: s.minFill, MaxFill: math.Min(0.97, s.minFill+0.05), JPEGQuality: s.jpegQ}
	// The same placement twice (the table does not draw from the photo's rng): first to find
	// the corner, then with the patch there.
	photoSeed := s.seed*7919 + 1
	spec.Table = paleDesk(rand.New(rand.NewSource(photoSeed)), size, s.desk, pt{}, 0, 0)
	p, err := st.Photograph(rand.New(rand.NewSource(photoSeed)), spec)
	if err != nil {
		panic(err)
	}
	if s.spotR > 0 {
		c := p.Truth.CornersPx[s.spotAt]
		spec.Table = paleDesk(rand.New(rand.NewSource(photoSeed)), size, s.desk, pt{c[0], c[1]}, s.spotR, s.spotK)
		p, err = st.Photograph(rand.New(rand.NewSource(photoSeed)), spec)
		if err != nil {
			panic(err)
		}
	}
	var q [4]pt
	for i, c := range p.Truth.CornersPx {
		q[i] = pt{c[0], c[1]}
	}
	return p.JPEG, q
}

// palePhoto is a ruled US-letter sheet, its paper tinted greenish (RGB x 0.88, 0.93, 0.86),
// photographed (renderPale: 95% of the frame, its bottom-left corner 14 px from the photo's
// edge) on a pale grey-green desk (RGB 176, 183, 176) with a bright patch of desk (+15%,
// radius 63 px) at its top-right corner; the sheet's corners from the truth. Rendered once.
var palePhoto = sync.OnceValues(func() ([]byte, [4]pt) {
	return renderPale(paleSpec{seed: 2023, desk: [3]float64{176.36881303231922, 183.36881303231922, 176.36881303231922},
		tint: [3]float64{0.88, 0.93, 0.86}, minFill: 0.9538320925400066, spotAt: 0, spotR: 62.54207962782111, spotK: 0.15383520739985485})
})

func readPalePhoto(t *testing.T) (gocv.Mat, [4]pt) {
	t.Helper()
	jpg, want := palePhoto()
	m, err := gocv.IMDecode(jpg, gocv.IMReadColor)
	require.NoError(t, err)
	return m, want
}

// TestRefineQuadBentCorner: held-out mateo-0 (a greenish sheet on a grey desk, a bright patch
// of desk at its top-left corner) was found with that corner 16.8 px off: the blob's hull took
// in the patch, its top side tilted; refineQuad found the top side's edge where it lay within
// reach (its right part) and the left side, but their meeting point was 15.6 px from the old
// corner, farther than a corner may move (three times the reach), so the corner stayed off
// both sides, and the sheet was taken. Here the truth quadrilateral of palePhoto
// is refined as it is (straight, 4 sides, corners within 1 px) and with one corner
// moved 15.6 px off (11 px out along the normal of the side after it, 11 px back along that
// side), as the patch moved mateo-0's: both sides are found where they lie within reach, and
// refineQuad says they do not meet at the corner (straight false), so sheetQuad refuses the
// quadrilateral and Fresh looks again (on mateo-0 splitSheet's opening finds the sheet,
// within 0.3 px). The photo is palePhoto; three of its four corners so moved are refused (the
// fourth's side is found on the retry at three times the reach, and the corner put back).
func TestRefineQuadBentCorner(t *testing.T) {
	photo, truth := readPalePhoto(t)
	defer photo.Close()
	reach := math.Max(4, 2*float64(max(photo.Cols(), photo.Rows()))/workLong) // Fresh's reach

	q, straight, found := refineQuad(photo, truth, reach)
	assert.True(t, straight)
	assert.Equal(t, 4, found)
	for i := range q {
		assert.Less(t, dist(q[i], truth[i]), 1.0, "corner %d", i)
	}

	bentCorners := 0
	for k := 0; k < 4; k++ {
		bent := truth
		a, b := truth[k], truth[(k+1)%4]
		d := b.sub(a).mul(1 / dist(a, b))
		n := pt{-d.Y, d.X}
		c := truth[0].add(truth[1]).add(truth[2]).add(truth[3]).mul(0.25)
		if n.dot(a.sub(c)) < 0 {
			n = n.mul(-1)
		}
		bent[k] = a.add(n.mul(11)).sub(d.mul(11))
		q, straight, _ := refineQuad(photo, bent, reach)
		// Either the sides are found and do not meet at the corner, or (a side not found
		// within reach is looked for again at three times it, and a corner then moves that
		// far) the corner is back on the sheet's.
		if straight {
			assert.Less(t, dist(q[k], truth[k]), 2.0, "corner %d moved 15.6 px: refined straight", k)
		} else {
			bentCorners++
		}
	}
	assert.Positive(t, bentCorners)
}

// TestFreshUnfoundSide: two ruled US-letter sheets on pale lavender desks (renderPale), where
// the colour models' blob gave a quadrilateral with a side along no edge of the sheet, which
// passed every check and was taken as the sheet:
//   - seed 2000: a soft shadow over the sheet's top made that paper the desk's colour; the
//     blob's top side ran along the baseline of a written word across the sheet (its colour
//     step 94 from the ink), the sheet found 312 px off (23.7% of the diagonal);
//   - seed 20087: a bright patch of desk at the sheet's bottom-left corner joined the blob,
//     and its bottom and left sides ran out across the desk (a step of 29), 57 px off.
//
// Both blobs are in doubt (side fit 0.65 and 0.66; refineQuad finds 3 and 2 of the 4 sides
// as edges), GrabCut puts the sheet elsewhere, and its sheet is taken. The sheet found must
// be within 1% of the diagonal of the truth's.
func TestFreshUnfoundSide(t *testing.T) {
	for _, sp := range []paleSpec{
		{seed: 2000, desk: [3]float64{224.6977667099459, 213.6470889165744, 233.65240027835398}, tint: [3]float64{1, 1, 1}, minFill: 0.9125442496650729},
		{seed: 20087, desk: [3]float64{232.69759762690254, 222.0650601218352, 238.0991987360383}, tint: [3]float64{1, 1, 1}, minFill: 0.9593296001533177,
			spotAt: 3, spotR: 73.4500536240363, spotK: 0.1570561922655437, jpegQ: 68},
	} {
		jpg, want := renderPale(sp)
		photo, err := gocv.IMDecode(jpg, gocv.IMReadColor)
		require.NoError(t, err)
		diag := math.Max(dist(want[0], want[2]), dist(want[1], want[3]))
		// The case: the colour blob's quadrilateral, refined, is far off and has a side
		// refineQuad does not find.
		loc, err := locate(photo, nil, workLong, true)
		require.NoError(t, err)
		r, err := pickSheet(loc)
		require.NoError(t, err, "seed %d: the colour models find a sheet", sp.seed)
		q, straight, found := refineQuad(photo, loc.photoQuad(r), math.Max(4, 2/loc.scale))
		require.True(t, straight)
		require.Greater(t, quadCornerError(q, want), 0.03*diag, "seed %d: the colour blob's quadrilateral is off", sp.seed)
		assert.Less(t, r.sideFit, 0.9, "seed %d", sp.seed)
		assert.Less(t, found, 4, "seed %d", sp.seed)

		s, err := Fresh(photo, letterPaper)
		photo.Close()
		require.NoError(t, err, "seed %d", sp.seed)
		freshCornersWithin(t, s, want, 0.01*diag, fmt.Sprintf("seed %d", sp.seed))
		s.Close()
	}
}

// quadCornerError is the largest distance (px) from a corner of q to the nearest of want's.
func quadCornerError(q, want [4]pt) float64 {
	worst := 0.0
	for _, c := range q {
		best := math.Inf(1)
		for _, w := range want {
			best = math.Min(best, dist(c, w))
		}
		worst = math.Max(worst, best)
	}
	return worst
}
