package vision

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"gocv.io/x/gocv"

	"tearcam/internal/synth"
	"tearcam/judge"
	"tearcam/template"
)

// TestHashDump is a tool, not a check: with VISION_HASH_OUT set it runs the referee's chain
// (Fresh; Register against the fresh sheet, then against the previous registered sheet when
// refused; Measure against the previous sheet) over the synthetic sets named by
// VISION_HASH_DIRS (colon-separated sets or cases; the project set when unset) and writes one line per
// result: a SHA-256 of every mask, image, homography, residual, note, foreign and unknown
// mask and measurement. Two runs' files are compared with diff to show that a speed change
// leaves every output bit for bit the same.
func TestHashDump(t *testing.T) {
	out := os.Getenv("VISION_HASH_OUT")
	if out == "" {
		t.Skip("VISION_HASH_OUT not set")
	}
	var dirs []string
	if d := os.Getenv("VISION_HASH_DIRS"); d != "" {
		for _, s := range strings.Split(d, ":") {
			cs, _ := filepath.Glob(filepath.Join(s, "case-*", "truth.json"))
			if len(cs) == 0 { // a case directory itself
				cs, _ = filepath.Glob(filepath.Join(s, "truth.json"))
			}
			for _, c := range cs {
				dirs = append(dirs, filepath.Dir(c))
			}
		}
	} else {
		dirs = synthDirs(t)
	}
	f, err := os.Create(out)
	require.NoError(t, err)
	defer f.Close()
	matHash := func(h interface{ Write([]byte) (int, error) }, m gocv.Mat) {
		if m.Empty() {
			h.Write([]byte("empty"))
			return
		}
		fmt.Fprintf(h, "%d %d %d", m.Rows(), m.Cols(), m.Type())
		h.Write(m.ToBytes())
	}
	sheetHash := func(s *SheetImage, err error) string {
		h := sha256.New()
		fmt.Fprintf(h, "err %v\n", err)
		if s != nil {
			matHash(h, s.Image)
			matHash(h, s.Mask)
			fmt.Fprintf(h, "%v %v %v %v %q", s.H, s.Corners, s.PxPerMM, s.ResidualMM, s.Notes)
			h.Write([]byte("foreign"))
			h.Write(s.foreign)
			h.Write([]byte("unknown"))
			h.Write(s.unknown)
		}
		return fmt.Sprintf("%x", h.Sum(nil))[:16]
	}
	for _, dir := range dirs {
		tr, err := synth.LoadTruth(dir)
		require.NoError(t, err)
		paper := truthPaper(tr)
		tpl := template.Template{Name: tr.Template.Name, PolygonMM: tr.Template.PolygonMM}
		name := filepath.Base(filepath.Dir(dir)) + "/" + filepath.Base(dir)
		for _, pl := range tr.Players {
			img0, err := ReadImage(filepath.Join(dir, pl.Sheet.File))
			require.NoError(t, err)
			fresh, err := Fresh(img0, paper)
			img0.Close()
			fmt.Fprintf(f, "%s %s fresh %s\n", name, pl.Sheet.File, sheetHash(fresh, err))
			if err != nil {
				if fresh != nil {
					fresh.Close()
				}
				continue
			}
			th0 := homog(pl.Sheet.Homography)
			toOurs := homog(fresh.H).inv().mul(th0)
			layouts := make([]judge.SkillLayout, len(pl.Skills))
			for i, sk := range pl.Skills {
				layouts[i].Name = sk.Name
				for _, le := range sk.Letters {
					var o []judge.Point
					for _, v := range le.OutlineMM {
						q := toOurs.apply(pt{v[0], v[1]})
						o = append(o, judge.Point{X: q.X, Y: q.Y})
					}
					layouts[i].Letters = append(layouts[i].Letters, judge.Letter{Char: le.Char, Outline: o})
				}
				layouts[i].Located = len(layouts[i].Letters)
			}
			var prev *SheetImage
			before := fresh
			for _, tt := range pl.Tears {
				img, err := ReadImage(filepath.Join(dir, tt.Photo.File))
				require.NoError(t, err)
				after, err := Register(fresh, img)
				fmt.Fprintf(f, "%s %s reg %s\n", name, tt.Photo.File, sheetHash(after, err))
				if err != nil && prev != nil {
					if after != nil {
						after.Close()
					}
					after, err = Register(prev, img)
					fmt.Fprintf(f, "%s %s regprev %s\n", name, tt.Photo.File, sheetHash(after, err))
				}
				img.Close()
				if err != nil {
					if after != nil {
						after.Close()
					}
					continue
				}
				r, err := Measure(before, after, layouts, tpl)
				h := sha256.New()
				fmt.Fprintf(h, "err %v\n", err)
				if r != nil {
					matHash(h, r.Removed)
					js, _ := json.Marshal(r)
					h.Write(js)
					r.Close()
				}
				fmt.Fprintf(f, "%s %s measure %x after %s\n", name, tt.Photo.File, h.Sum(nil)[:8], sheetHash(after, nil))
				if prev != nil {
					prev.Close()
				}
				prev = after
				before = after
			}
			if prev != nil {
				prev.Close()
			}
			fresh.Close()
		}
	}
}
