package vision

import (
	"image"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"gocv.io/x/gocv"

	"tearcam/internal/synth"
	"tearcam/template"
)

// truthPaperInFrame is the synthetic truth's paper after tear n (1-based; 0: the untorn
// sheet) of player pl, in our frame (w x h at ppm px/mm, fresh registered to the truth's
// fresh photo): the sheet minus every piece of tears 1..n (their polygons, simplified by the
// generator to 0.25 mm). 255 paper, 0 not.
func truthPaperInFrame(fresh *SheetImage, pl synth.PlayerTruth, n, w, h int) []byte {
	toTruth := homog(pl.Sheet.Homography).inv().mul(homog(fresh.H))
	var polys [][]pt
	for _, tt := range pl.Tears[:n] {
		for _, pc := range tt.Pieces {
			var p []pt
			for _, v := range pc.PolygonMM {
				p = append(p, pt{v[0], v[1]})
			}
			polys = append(polys, p)
		}
	}
	out := make([]byte, w*h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			q := toTruth.apply(pt{(float64(x) + 0.5) / fresh.PxPerMM, (float64(y) + 0.5) / fresh.PxPerMM})
			if q.X < 0 || q.Y < 0 || q.X > fresh.Paper.WidthMM || q.Y > fresh.Paper.HeightMM {
				continue
			}
			out[y*w+x] = 255
			for _, p := range polys {
				if pointInPoly(q, p) {
					out[y*w+x] = 0
					break
				}
			}
		}
	}
	return out
}

// maskMisses counts, in mm², the pixels more than tolMM inside truth's paper (and the
// frame's edge) that got calls not paper (lost) and those more than tolMM outside it that got
// calls paper (extra).
func maskMisses(t *testing.T, truth, got []byte, w, h int, ppm, tolMM float64) (lost, extra float64) {
	t.Helper()
	k := gocv.GetStructuringElement(gocv.MorphEllipse, image.Pt(2*int(tolMM*ppm)+1, 2*int(tolMM*ppm)+1))
	defer k.Close()
	in, out := newMask(w, h, append([]byte(nil), truth...)), newMask(w, h, append([]byte(nil), truth...))
	defer in.Close()
	defer out.Close()
	gocv.Erode(in, &in, k)
	gocv.Dilate(out, &out, k)
	ib, ob := in.ToBytes(), out.ToBytes()
	n, m := 0, 0
	r := int(tolMM * ppm) // the frame's edge is the truth's outline too
	for i := range got {
		x, y := i%w, i/w
		if ib[i] != 0 && got[i] == 0 && x >= r && y >= r && x < w-r && y < h-r {
			n++
		}
		if ob[i] == 0 && got[i] != 0 {
			m++
		}
	}
	return float64(n) / (ppm * ppm), float64(m) / (ppm * ppm)
}

// TestShadedCornerLighting: a later photo whose sheet is strongly shaded at a corner that the
// colour test calls table (seed 5 case-007 ann-3: green-grey paper on an olive table). The
// change test's lighting there used to be the sheet's global mean (no confident paper near
// enough), so a 10 x 25 mm triangle of paper at the frame's top-left corner was lost, and the
// referee read it as a second removed piece (faux pas several_pieces on a valid bite) and
// refused the next two tears ("paper that the sheet before this tear lacked"). The mask must
// now equal the truth within 1 mm.
func TestShadedCornerLighting(t *testing.T) {
	pl, fresh, register := bundledCase(t, "seed5-case007")
	defer fresh.Close()
	after := register(pl.Tears[2].Photo.File)
	defer after.Close()
	w, h := after.Mask.Cols(), after.Mask.Rows()
	truth := truthPaperInFrame(fresh, pl, 3, w, h)
	lost, extra := maskMisses(t, truth, after.Mask.ToBytes(), w, h, after.PxPerMM, 1)
	t.Logf("paper lost %.1f mm², table called paper %.1f mm² (beyond 1 mm of the truth's outline)", lost, extra)
	require.Less(t, lost, 2.0, "paper lost (before the fix: 138 mm², at the shaded corner)")
	require.Less(t, extra, 2.0)
	// The truth's removed paper after three tears (the untorn sheet's area minus the paper
	// left), as a check of the frame mapping.
	require.InEpsilon(t, pl.Tears[2].RemainingAreaMM2, countNonZero(truth)/(after.PxPerMM*after.PxPerMM), 0.001)
}

func countNonZero(b []byte) float64 {
	n := 0
	for _, v := range b {
		if v != 0 {
			n++
		}
	}
	return float64(n)
}

// TestShadedMidSheetPieces: seed 3 case-003, tears 3 (none) and 4 (cut_only: one piece),
// measured from the photo before tear 3 (emil-2; emil-3 cuts the sheet off) to the one after
// tear 4 (emil-4, a pale desk). A patch of shaded paper mid-sheet, about 100 mm from the
// band around the sheet where the table is seen, was lost from emil-4's mask: the table's
// colour there is the band's mean (the estimate does not reach), which the shaded cream
// paper is as near as to the lit paper predicted (BGR 179 195 212: 19 from the table, 20
// from the prediction), and paper that near the table trains no lighting, so the
// prediction stayed too bright. It was measured as a second removed piece of 158 mm². Where
// the table's colour is that guess, the table must be twice as near as the paper.
func TestShadedMidSheetPieces(t *testing.T) {
	pl, fresh, register := bundledCase(t, "seed3-case003")
	defer fresh.Close()
	b, a := register(pl.Tears[1].Photo.File), register(pl.Tears[3].Photo.File)
	defer b.Close()
	defer a.Close()

	// The mask of emil-4 against the truth's paper after four tears.
	w, h := a.Mask.Cols(), a.Mask.Rows()
	truth := truthPaperInFrame(fresh, pl, 4, w, h)
	lost, extra := maskMisses(t, truth, a.Mask.ToBytes(), w, h, a.PxPerMM, 1)
	t.Logf("emil-4: paper lost %.1f mm², table called paper %.1f mm²", lost, extra)
	require.Less(t, lost, 2.0, "paper lost (before: 160 mm², the shaded patch mid-sheet)")
	require.Less(t, extra, 600.0, "table called paper (before: 1424 mm²)")

	res, err := Measure(b, a, nil, template.Default())
	require.NoError(t, err)
	defer res.Close()
	require.Empty(t, pl.Tears[2].Pieces)
	want := pl.Tears[3]
	m := res.Measurement
	t.Logf("pieces %d, %.0f mm² (truth %d, %.0f mm²), doubts %v", m.Pieces, m.RemovedAreaMM2, len(want.Pieces), want.RemovedAreaMM2, m.Uncertain)
	require.Equal(t, len(want.Pieces), m.Pieces, "before: a second piece of 158 mm² at (128, 102) mm")
	require.InEpsilon(t, want.RemovedAreaMM2, m.RemovedAreaMM2, 0.1)
}

// bundledCase is a synthetic case kept in vision/testdata (name: its folder): its truth's
// first player, that player's fresh sheet (the caller closes it) and register, which registers
// one of the case's photos to the fresh sheet (the caller closes the result).
func bundledCase(t *testing.T, name string) (synth.PlayerTruth, *SheetImage, func(file string) *SheetImage) {
	t.Helper()
	dir := filepath.Join("testdata", name)
	tr, err := synth.LoadTruth(dir)
	require.NoError(t, err)
	pl := tr.Players[0]
	fresh := synthFresh(t, filepath.Join(dir, pl.Sheet.File), truthPaper(tr))
	register := func(file string) *SheetImage {
		img, err := ReadImage(filepath.Join(dir, file))
		require.NoError(t, err)
		defer img.Close()
		s, err := Register(fresh, img)
		require.NoError(t, err)
		return s
	}
	return pl, fresh, register
}
