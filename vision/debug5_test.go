package vision

import (
	"errors"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"gocv.io/x/gocv"

	"tearcam/internal/synth"
	"tearcam/template"
)

// TestRegDiag (VISION_REGDIAG=case-003/ines-1.jpg,...) registers each listed synthetic photo
// against its fresh sheet and writes /tmp/rd/<case>_<file>.png: the frame image, our mask
// outline (red), the truth's removed pieces so far (green), error vectors x10 (yellow).
func TestRegDiag(t *testing.T) {
	list := os.Getenv("VISION_REGDIAG")
	if list == "" {
		t.Skip("debug only")
	}
	keepRefused = true
	defer func() { keepRefused = false }()
	for _, f := range strings.Split(list, ",") {
		dir := filepath.Join("..", "testdata", "images", "synth", filepath.Dir(f))
		tr, err := synth.LoadTruth(dir)
		require.NoError(t, err)
		paper := template.Paper{Name: tr.Paper.Name, WidthMM: tr.Paper.WidthMM, HeightMM: tr.Paper.HeightMM}
		for _, pl := range tr.Players {
			for ti, tt := range pl.Tears {
				if tt.Photo.File != filepath.Base(f) {
					continue
				}
				img, _ := ReadImage(filepath.Join(dir, pl.Sheet.File))
				fresh, err := Fresh(img, paper)
				img.Close()
				require.NoError(t, err)
				img, _ = ReadImage(filepath.Join(dir, tt.Photo.File))
				debugDir = os.Getenv("VISION_REGONE_DIR")
				th0, th := homog(pl.Sheet.Homography), homog(tt.Photo.Homography)
				ours2photo := th.mul(th0.inv()).mul(homog(fresh.H))
				W, H := paper.WidthMM, paper.HeightMM
				regDump = func(stage string, h homog, pairs []pair) {
					hi := h.inv()
					var cs []string
					for _, c := range []pt{{0, 0}, {W, 0}, {W, H}, {0, H}} {
						cs = append(cs, fmt.Sprintf("%.2f", dist(hi.apply(ours2photo.apply(c)), c)))
					}
					oi := ours2photo.inv()
					var ps []string
					for _, p := range pairs {
						e := oi.apply(p.v).sub(p.u)
						ps = append(ps, fmt.Sprintf("(%.0f,%.0f:%.2f,%.2f)", p.u.X, p.u.Y, e.X, e.Y))
					}
					t.Logf("  %s corners true err %v pairs %v", stage, cs, ps)
				}
				edgeDump = func(offs []float64, keys []int, ref map[int]float64, spill, edge int) {
					var b [4]string
					for i, o := range offs {
						s := keys[i] >> 20
						r, ok := ref[keys[i]]
						c := fmt.Sprintf("%.0f", o*4)
						if ok && r*4 != -0.5 && r*4 != 0.5 && r*4 != 0 {
							c += fmt.Sprintf("(%.0f)", r*4)
						}
						b[s] += c + " "
					}
					t.Logf("spill %d edge %d", spill, edge)
					for s := range b {
						t.Logf("  side %d: %s", s, b[s])
					}
				}
				after, err := Register(fresh, img)
				edgeDump = nil
				regDump = nil
				debugDir = ""
				img.Close()
				t.Logf("%s: err=%v", f, err)
				if after == nil {
					fresh.Close()
					continue
				}
				hi := homog(after.H).inv()
				ppm := after.PxPerMM
				vis := after.Image.Clone()
				// our mask contour
				cs := gocv.FindContours(after.Mask, gocv.RetrievalList, gocv.ChainApproxNone)
				gocv.DrawContours(&vis, cs, -1, colorRGBA(255, 0, 0), 1)
				cs.Close()
				var polys [][]image.Point
				for k := 0; k <= ti; k++ {
					for _, pc := range pl.Tears[k].Pieces {
						var poly []image.Point
						t2o := homog(fresh.H).inv().mul(th0)
						for _, q := range pc.PolygonMM {
							poly = append(poly, mmToPx(t2o.apply(pt{q[0], q[1]}), ppm).img())
						}
						polys = append(polys, poly)
					}
				}
				if len(polys) > 0 {
					pv := gocv.NewPointsVectorFromPoints(polys)
					gocv.Polylines(&vis, pv, true, colorRGBA(0, 200, 0), 1)
					pv.Close()
				}
				em := 0.0
				var corners []string
				for y := 0.0; y <= paper.HeightMM; y += 10 {
					for x := 0.0; x <= paper.WidthMM; x += 10 {
						got := hi.apply(ours2photo.apply(pt{x, y}))
						d := got.sub(pt{x, y})
						a := mmToPx(pt{x, y}, ppm)
						gocv.Line(&vis, a.img(), a.add(d.mul(10*ppm)).img(), colorRGBA(255, 255, 0), 1)
						em = max(em, d.norm())
					}
				}
				for _, c := range []pt{{0, 0}, {paper.WidthMM, 0}, {paper.WidthMM, paper.HeightMM}, {0, paper.HeightMM}} {
					got := hi.apply(ours2photo.apply(c))
					corners = append(corners, fmt.Sprintf("%.2f", dist(got, c)))
				}
				te := synthRegErr(fresh, after, th0, th, paper)
				t.Logf("%s: refused=%v true(mask)=%.2f max(sheet)=%.2f corners=%v resid=%.2f notes=%v", f, errors.Is(err, ErrRegistration), te, em, corners, after.ResidualMM, after.Notes)
				out := fmt.Sprintf("/tmp/rd/%s_%s.png", filepath.Dir(f), strings.TrimSuffix(filepath.Base(f), ".jpg"))
				gocv.IMWrite(out, vis)
				vis.Close()
				after.Close()
				fresh.Close()
			}
		}
	}
}

// TestCrop (VISION_CROP=in.png,x,y,w,h,scale,out.png[;...]) writes enlarged crops. Debug only.
func TestCrop(t *testing.T) {
	spec := os.Getenv("VISION_CROP")
	if spec == "" {
		t.Skip("debug only")
	}
	for _, s := range strings.Split(spec, ";") {
		var in, out string
		var x, y, w, h, sc int
		f := strings.Split(s, ",")
		in, out = f[0], f[6]
		fmt.Sscan(f[1], &x)
		fmt.Sscan(f[2], &y)
		fmt.Sscan(f[3], &w)
		fmt.Sscan(f[4], &h)
		fmt.Sscan(f[5], &sc)
		m := gocv.IMRead(in, gocv.IMReadColor)
		r := image.Rect(x, y, x+w, y+h).Intersect(image.Rect(0, 0, m.Cols(), m.Rows()))
		c := m.Region(r)
		d := gocv.NewMat()
		gocv.Resize(c, &d, image.Pt(r.Dx()*sc, r.Dy()*sc), 0, 0, gocv.InterpolationNearestNeighbor)
		gocv.IMWrite(out, d)
		d.Close()
		c.Close()
		m.Close()
	}
}

// TestChainDiag (VISION_CHAIN=case-010) registers each tear of the first player to the
// previous registered sheet (the referee's fallback order: fresh first, then previous) and
// measures it; writes /tmp/rd/chain_<file>.jpg. Debug only.
func TestChainDiag(t *testing.T) {
	cs := os.Getenv("VISION_CHAIN")
	if cs == "" {
		t.Skip("debug only")
	}
	dir := filepath.Join("..", "testdata", "images", "synth", cs)
	tr, err := synth.LoadTruth(dir)
	require.NoError(t, err)
	paper := template.Paper{Name: tr.Paper.Name, WidthMM: tr.Paper.WidthMM, HeightMM: tr.Paper.HeightMM}
	pl := tr.Players[0]
	img, _ := ReadImage(filepath.Join(dir, pl.Sheet.File))
	fresh, err := Fresh(img, paper)
	img.Close()
	require.NoError(t, err)
	defer fresh.Close()
	prev := fresh
	for _, tt := range pl.Tears {
		img, _ := ReadImage(filepath.Join(dir, tt.Photo.File))
		after, err := Register(fresh, img)
		if err != nil && prev != fresh {
			t.Logf("%s: to fresh: %v; to previous", tt.Photo.File, err)
			after, err = Register(prev, img)
		}
		img.Close()
		if err != nil {
			t.Logf("%s: %v", tt.Photo.File, err)
			continue
		}
		r, err := Measure(prev, after, nil, template.Default())
		require.NoError(t, err)
		want := 0.0
		for _, pc := range tt.Pieces {
			want += pc.AreaMM2
		}
		t.Logf("%s (%s): resid %.2f pieces %d (want %d) area %.0f (want %.0f)", tt.Photo.File, tt.Intent, after.ResidualMM, r.Pieces, len(tt.Pieces), r.AreaMM2, want)
		a, err := Annotate(after, r, nil, string(tt.Intent), nil)
		if err == nil {
			gocv.IMWrite("/tmp/rd/chain_"+cs+"_"+strings.TrimSuffix(tt.Photo.File, ".jpg")+".jpg", a)
			a.Close()
		}
		r.Close()
		if prev != fresh {
			prev.Close()
		}
		prev = after
	}
	if prev != fresh {
		prev.Close()
	}
}
