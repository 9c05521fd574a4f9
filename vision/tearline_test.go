package vision

import (
	"fmt"
	"image"
	"math"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
	"gocv.io/x/gocv"

	"tearcam/internal/synth"
)

// TestTearLineError measures how far the registered paper mask of each synthetic after-photo
// strays from the exact remaining paper (sheet rectangle minus every piece torn so far, from
// the generator's polygons): for each pixel the two masks disagree on, its distance to the
// true outline. This is the mask's error at tear lines, which letterUncertainMM must cover
// (with the registration residual). Ink pixels of the fresh sheet are counted apart (a
// letter's ink matches a dark table as well as itself). Set VISION_TEARLINE=1 to run.
func TestTearLineError(t *testing.T) {
	if os.Getenv("VISION_TEARLINE") == "" {
		t.Skip("set VISION_TEARLINE=1")
	}
	var paperD, inkD, outerD []float64
	for _, dir := range synthDirs(t) {
		tr, err := synth.LoadTruth(dir)
		require.NoError(t, err)
		paper := truthPaper(tr)
		for _, pl := range tr.Players {
			if pl.Sheet.CutOff {
				continue
			}
			fresh := synthFresh(t, filepath.Join(dir, pl.Sheet.File), paper)
			toOurs := homog(fresh.H).inv().mul(homog(pl.Sheet.Homography))
			ink := freshInk(fresh)
			var gone [][]pt
			for _, tt := range pl.Tears {
				for _, pc := range tt.Pieces {
					var q []pt
					for _, v := range pc.PolygonMM {
						q = append(q, toOurs.apply(pt{v[0], v[1]}))
					}
					gone = append(gone, q)
				}
				if tt.Photo.CutOff {
					continue
				}
				img, err := ReadImage(filepath.Join(dir, tt.Photo.File))
				require.NoError(t, err)
				after, err := Register(fresh, img)
				img.Close()
				if err != nil {
					continue
				}
				w, h := after.Mask.Cols(), after.Mask.Rows()
				ppm := after.PxPerMM
				var sheet []pt
				for _, c := range [][2]float64{{0, 0}, {paper.WidthMM, 0}, {paper.WidthMM, paper.HeightMM}, {0, paper.HeightMM}} {
					sheet = append(sheet, toOurs.apply(pt{c[0], c[1]}))
				}
				want := polyMask(w, h, ppm, [][]pt{sheet}, gone)
				got := after.Mask.ToBytes()
				if os.Getenv("VISION_TEARLINE_RAW") == "" {
					got = fillInkZone(freshGray(fresh), w, h, ppm, []image.Rectangle{image.Rect(0, 0, w, h)}, got)[0]
				}
				wb := want.ToBytes()
				in := distance(want)
				inv := gocv.NewMat()
				gocv.BitwiseNot(want, &inv)
				out := distance(inv)
				inv.Close()
				want.Close()
				edge := int(2 * ppm)
				var worst float64
				for i := range wb {
					if (wb[i] != 0) == (got[i] != 0) {
						continue
					}
					x, y := i%w, i/w
					d := float64(in[i]+out[i]) / ppm
					switch {
					case x < edge || y < edge || x >= w-edge || y >= h-edge:
						outerD = append(outerD, d)
					case ink[i] != 0:
						inkD = append(inkD, d)
					default:
						paperD = append(paperD, d)
						worst = math.Max(worst, d)
					}
				}
				if os.Getenv("VISION_TEARLINE_DUMP") != "" && worst > 2 {
					dump := gocv.NewMatWithSize(h, w, gocv.MatTypeCV8UC3)
					for i := range wb {
						v := [3]uint8{0, 0, 0}
						switch {
						case wb[i] != 0 && got[i] != 0:
							v = [3]uint8{200, 200, 200}
						case wb[i] != 0:
							v = [3]uint8{0, 200, 0} // paper missed
						case got[i] != 0:
							v = [3]uint8{0, 0, 255} // paper made up
						}
						dump.SetUCharAt(i/w, (i%w)*3, v[0])
						dump.SetUCharAt(i/w, (i%w)*3+1, v[1])
						dump.SetUCharAt(i/w, (i%w)*3+2, v[2])
					}
					gocv.IMWrite(filepath.Join(os.TempDir(), "tearline_"+filepath.Base(dir)+"_"+tt.Photo.File), dump)
					dump.Close()
				}
				t.Logf("%s/%s: residual %.2f mm, worst paper disagreement %.2f mm", filepath.Base(dir), tt.Photo.File, after.ResidualMM, worst)
				after.Close()
			}
			fresh.Close()
		}
	}
	for _, s := range []struct {
		name string
		d    []float64
	}{{"paper", paperD}, {"ink", inkD}, {"outer 2 mm", outerD}} {
		sort.Float64s(s.d)
		q := func(p float64) float64 {
			if len(s.d) == 0 {
				return 0
			}
			return s.d[min(len(s.d)-1, int(p*float64(len(s.d))))]
		}
		t.Log(fmt.Sprintf("%-10s disagreeing px %7d: distance to the true outline p50 %.2f p90 %.2f p99 %.2f p99.9 %.2f max %.2f mm",
			s.name, len(s.d), q(0.5), q(0.9), q(0.99), q(0.999), q(1)))
	}
}
