package vision

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"tearcam/internal/synth"
)

// freshCornerError is the largest distance (photo px) from a corner of s to the nearest of
// want's (the truth's corners, in whatever order orientQuad chose).
func freshCornerError(s *SheetImage, want [4]pt) float64 {
	worst := 0.0
	for _, c := range s.Corners {
		best := math.Inf(1)
		for _, w := range want {
			best = math.Min(best, dist(ptOf(c), w))
		}
		worst = math.Max(worst, best)
	}
	return worst
}

// TestFreshCornersDiag (VISION_FRESHDIAG=set[:set...], folders of synthetic cases) runs Fresh
// on every fresh photo that shows the whole sheet and logs its largest corner error against
// truth.json's corners_px (and as a share of the diagonal), worst last, with the smallest
// colour step across a side found (minSideStep) and each photo's time. A diagnostic: it fails only on a photo it cannot read.
func TestFreshCornersDiag(t *testing.T) {
	sets := os.Getenv("VISION_FRESHDIAG")
	if sets == "" {
		t.Skip("set VISION_FRESHDIAG")
	}
	type row struct {
		name    string
		err     float64 // px; +Inf when Fresh failed
		rel     float64 // err / diagonal
		why     string
		step    float64 // the smallest colour step across a found side (minSideStep)
		aspect  string  // the width:height range rectAspect gives, and the paper's
		elapsed time.Duration
	}
	var rows []row
	for _, set := range strings.Split(sets, ":") {
		tjs, _ := filepath.Glob(filepath.Join(set, "*", "truth.json"))
		sort.Strings(tjs)
		for _, tj := range tjs {
			dir := filepath.Dir(tj)
			tr, err := synth.LoadTruth(dir)
			require.NoError(t, err)
			for _, pl := range tr.Players {
				if pl.Sheet.CutOff {
					continue
				}
				var want [4]pt
				for i, c := range pl.Sheet.CornersPx {
					want[i] = pt{c[0], c[1]}
				}
				diag := math.Max(dist(want[0], want[2]), dist(want[1], want[3]))
				img, err := ReadImage(filepath.Join(dir, pl.Sheet.File))
				require.NoError(t, err)
				t0 := time.Now()
				s, err := Fresh(img, truthPaper(tr))
				el := time.Since(t0)
				r := row{name: filepath.Base(set) + "/" + filepath.Base(dir) + "/" + pl.Sheet.File + " (" + pl.Sheet.Background + ")", elapsed: el}
				if err != nil {
					r.err, r.rel, r.why = math.Inf(1), math.Inf(1), err.Error()
				} else {
					r.err = freshCornerError(s, want)
					r.rel = r.err / diag
					var q [4]pt
					for i, c := range s.Corners {
						q[i] = ptOf(c)
					}
					r.step = minSideStep(u8view(img), img.Cols(), img.Rows(), q)
					lo, hi := rectAspect(q, pt{float64(img.Cols()) / 2, float64(img.Rows()) / 2})
					p := truthPaper(tr)
					r.aspect = fmt.Sprintf("aspect %.3f-%.3f (%s %.3f)", lo, hi, p.Name, p.WidthMM/p.HeightMM)
					s.Close()
				}
				img.Close()
				rows = append(rows, r)
			}
		}
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].rel < rows[j].rel })
	bad := 0
	for _, r := range rows {
		if r.rel >= 0.01 {
			bad++
		}
		t.Logf("%-50s corner error %7.1f px (%.2f%% of diagonal), side step %3.0f, %s, %4d ms %s", r.name, r.err, 100*r.rel, r.step, r.aspect, r.elapsed.Milliseconds(), r.why)
	}
	t.Logf("%d fresh photos, %d with a corner 1%% of the diagonal or more off (or not found)", len(rows), bad)
}
