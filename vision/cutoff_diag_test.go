package vision

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"gocv.io/x/gocv"

	"tearcam/internal/synth"
)

// TestCutOffDiag (VISION_CUTDIAG=dir of a synthetic set) registers every cut-off later photo
// and reports the paper mask's errors against the truth in the known region, by distance
// from the unknown zone.
func TestCutOffDiag(t *testing.T) {
	root := os.Getenv("VISION_CUTDIAG")
	if root == "" {
		t.Skip("set VISION_CUTDIAG")
	}
	dirs, _ := filepath.Glob(filepath.Join(root, "*", "truth.json"))
	for _, tj := range dirs {
		dir := filepath.Dir(tj)
		tr, err := synth.LoadTruth(dir)
		require.NoError(t, err)
		paper := truthPaper(tr)
		for _, pl := range tr.Players {
			if pl.Sheet.CutOff {
				continue
			}
			var fresh *SheetImage
			var gone [][]pt
			for _, tt := range pl.Tears {
				if fresh == nil {
					img, err := ReadImage(filepath.Join(dir, pl.Sheet.File))
					require.NoError(t, err)
					fresh, err = Fresh(img, paper)
					img.Close()
					if err != nil {
						t.Logf("%s %s: %v", filepath.Base(dir), pl.Sheet.File, err)
						break
					}
				}
				toOurs := homog(fresh.H).inv().mul(homog(pl.Sheet.Homography))
				for _, pc := range tt.Pieces {
					var q []pt
					for _, v := range pc.PolygonMM {
						q = append(q, toOurs.apply(pt{v[0], v[1]}))
					}
					gone = append(gone, q)
				}
				if !tt.Photo.CutOff {
					continue
				}
				img, err := ReadImage(filepath.Join(dir, tt.Photo.File))
				require.NoError(t, err)
				after, err := Register(fresh, img)
				img.Close()
				if err != nil {
					t.Logf("%s %s: %v", filepath.Base(dir), tt.Photo.File, err)
					continue
				}
				w, h := after.Mask.Cols(), after.Mask.Rows()
				ppm := after.PxPerMM
				var sheet []pt
				for _, c := range [][2]float64{{0, 0}, {paper.WidthMM, 0}, {paper.WidthMM, paper.HeightMM}, {0, paper.HeightMM}} {
					sheet = append(sheet, toOurs.apply(pt{c[0], c[1]}))
				}
				want := polyMask(w, h, ppm, [][]pt{sheet}, gone)
				wb := want.ToBytes()
				want.Close()
				got := after.Mask.ToBytes()
				zn := newMask(w, h, after.unknown)
				inv := zn.Clone()
				zn.Close()
				zb := inv.ToBytes()
				for i := range zb {
					zb[i] = 255 - zb[i]
				}
				inv.Close()
				zm := newMask(w, h, zb)
				dz := distance(zm)
				zm.Close()
				var lost, extra [6]float64 // by distance band 0-2,2-4,4-8,8-16,16-32,>32 mm
				band := func(d float64) int {
					switch {
					case d < 2:
						return 0
					case d < 4:
						return 1
					case d < 8:
						return 2
					case d < 16:
						return 3
					case d < 32:
						return 4
					}
					return 5
				}
				for i := range wb {
					if after.unknown != nil && after.unknown[i] != 0 {
						continue
					}
					b := band(float64(dz[i]) / ppm)
					if wb[i] != 0 && got[i] == 0 {
						lost[b] += 1 / (ppm * ppm)
					}
					if wb[i] == 0 && got[i] != 0 {
						extra[b] += 1 / (ppm * ppm)
					}
				}
				if od := os.Getenv("VISION_CUTDIAG_OUT"); od != "" {
					dm := gocv.NewMatWithSize(h, w, gocv.MatTypeCV8UC3)
					db := make([]byte, 3*w*h)
					for i := range wb {
						switch {
						case after.unknown != nil && after.unknown[i] != 0:
							db[3*i], db[3*i+1], db[3*i+2] = 128, 128, 128
						case wb[i] != 0 && got[i] != 0:
							db[3*i], db[3*i+1], db[3*i+2] = 255, 255, 255
						case wb[i] != 0:
							db[3*i+2] = 255 // lost: red
						case got[i] != 0:
							db[3*i] = 255 // extra: blue
						}
					}
					dm2, _ := gocv.NewMatFromBytes(h, w, gocv.MatTypeCV8UC3, db)
					gocv.IMWrite(filepath.Join(od, filepath.Base(dir)+"-"+tt.Photo.File+".png"), dm2)
					dm2.Close()
					dm.Close()
				}
				im, at := inkMissing(fresh, after, !after.Partial())
				t.Logf("ink missing %.1f mm² at (%.0f, %.0f)", im, at.X, at.Y)
				t.Logf("%s %s (%s): unknown %.0f mm², resid %.2f; lost by band %v; extra %v", filepath.Base(dir), tt.Photo.File, tt.Intent, after.UnknownMM2(), after.ResidualMM, r0(lost), r0(extra))
				after.Close()
			}
			if fresh != nil {
				fresh.Close()
			}
		}
	}
}

func r0(a [6]float64) [6]int {
	var o [6]int
	for i, v := range a {
		o[i] = int(v + 0.5)
	}
	return o
}
