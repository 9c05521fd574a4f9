package vision

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"tearcam/internal/synth"
)

// TestRegisterRemnantDump registers the named photos of synthetic sets
// (VISION_REMNANT=/tmp/synth2/case-020/emil-4.jpg,...) and logs each stage of registerRemnant
// with its true error: at the sheet's corners, and at the matched features (the affine
// stage) or the untorn edge samples (the outline rounds), registerCorner's outline corners
// and poses; then the outcome.
func TestRegisterRemnantDump(t *testing.T) {
	env := os.Getenv("VISION_REMNANT")
	if env == "" {
		t.Skip("VISION_REMNANT=set/case/photo.jpg[,...] to dump")
	}
	for _, c := range strings.Split(env, ",") {
		dir := filepath.Dir(c)
		tr, err := synth.LoadTruth(dir)
		require.NoError(t, err)
		paper := truthPaper(tr)
		for _, pl := range tr.Players {
			for _, tt := range pl.Tears {
				if tt.Photo.File != filepath.Base(c) {
					continue
				}
				fresh := synthFresh(t, filepath.Join(dir, pl.Sheet.File), paper)
				truth := homog(tt.Photo.Homography).mul(homog(pl.Sheet.Homography).inv()).mul(homog(fresh.H))
				remnantHook = func(stage string, h homog, is []pt, pairs []pair) {
					e := 0.0
					for _, p := range []pt{{0, 0}, {paper.WidthMM, 0}, {paper.WidthMM, paper.HeightMM}, {0, paper.HeightMM}} {
						e = max(e, dist(h.inv().apply(truth.apply(p)), p))
					}
					ei := 0.0
					for _, p := range is {
						ei = max(ei, dist(h.inv().apply(truth.apply(p)), p))
					}
					var ep []float64 // each patch's match against the truth
					for _, p := range pairs {
						ep = append(ep, math.Round(100*dist(truth.inv().apply(p.v), p.u))/100)
					}
					t.Logf("%s %s: true error at the corners %.2f mm, at the evidence %.2f mm; patches off by %v", c, stage, e, ei, ep)
				}
				cornerSrcHook = func(cs []outlineCorner, src, dst []pt) {
					right := 0
					for i := range src {
						if dist(truth.apply(src[i]), dst[i]) < 4 {
							right++
						}
					}
					t.Logf("%s corners: %d of %d feature matches right", c, right, len(src))
					for _, oc := range cs {
						best := math.Inf(1)
						for _, sc := range sheetCorners(paper.WidthMM, paper.HeightMM) {
							best = math.Min(best, dist(truth.apply(sc.at), oc.at))
						}
						t.Logf("  outline corner at %.1f px, %.1f px from the nearest sheet corner", oc.at, best)
					}
				}
				cornerHook = func(_ []outlineCorner, poses []cornerPose) {
					for _, p := range poses {
						t.Logf("  corner pose at sheet corner %v on %d matches", p.corner, len(p.support))
					}
				}
				regDump = func(stage string, h homog, pairs []pair) {
					remnantHook("register: "+stage, h, nil, pairs)
				}
				img, err := ReadImage(c)
				require.NoError(t, err)
				out, err := Register(fresh, img)
				t.Logf("%s: %v", c, err)
				if out != nil {
					t.Logf("  true %.2f notes %v", synthRegErr(fresh, out, homog(pl.Sheet.Homography), homog(tt.Photo.Homography), paper), out.Notes)
					out.Close()
				}
				img.Close()
				fresh.Close()
				remnantHook, regDump, cornerHook, cornerSrcHook = nil, nil, nil, nil
			}
		}
	}
}
