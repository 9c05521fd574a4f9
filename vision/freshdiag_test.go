package vision

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"gocv.io/x/gocv"

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

// freshDiagPhoto is one fresh photo TestFreshCornersDiag looks at: its name, the photo
// (the caller closes it), the paper and the truth's corners.
type freshDiagPhoto struct {
	name  string
	img   gocv.Mat
	truth *synth.Truth
	sheet synth.PhotoTruth
	// dir is the case folder of a folder source ("" for a generated one) and tears the
	// player's tears, whose photos lie there.
	dir   string
	tears []synth.TearTruth
}

// heldOutSeeds are the seeds of the synthetic sets kept for held-out checks: no diagnostic
// generates them.
func heldOutSeed(seed int64) bool { return seed >= 14 && seed <= 19 }

// freshDiagSource calls each with every fresh photo of one VISION_FRESHDIAG entry that shows
// the whole sheet: a folder of synthetic cases (case-*/truth.json), or "seed:N:M[:K]", the fresh
// photos of `tearcam-synth --seed N --cases M` (from case K on) made here (byte for byte the set's <player>-0.jpg:
// a case with no tears draws the same random numbers up to its first photo) without the
// later photos, four to five times faster than generating the set.
func freshDiagSource(t *testing.T, src string, each func(p freshDiagPhoto)) {
	if rest, ok := strings.CutPrefix(src, "seed:"); ok {
		f := strings.Split(rest, ":")
		from := 1
		var err3 error
		if len(f) == 3 {
			from, err3 = strconv.Atoi(f[2])
		}
		require.True(t, len(f) >= 2, "want seed:N:M[:K], got %q", src)
		seed, err1 := strconv.ParseInt(f[0], 10, 64)
		cases, err2 := strconv.Atoi(f[1])
		require.True(t, err1 == nil && err2 == nil && err3 == nil && cases > 0 && from >= 1, "want seed:N:M[:K], got %q", src)
		require.False(t, heldOutSeed(seed), "seed %d is held out", seed)
		for _, spec := range synth.SetSpecs(synth.SetOptions{Seed: seed, Cases: cases})[from-1:] {
			spec.Tears = []synth.TearPlan{} // the fresh photo only
			c, err := synth.GenerateCase(spec)
			require.NoError(t, err)
			img, err := DecodeImage(c.Photos[0].JPEG)
			require.NoError(t, err)
			pl := c.Truth.Players[0]
			each(freshDiagPhoto{name: fmt.Sprintf("seed%d/%s/%s", seed, spec.Name, pl.Sheet.File), img: img, truth: &c.Truth, sheet: pl.Sheet})
			img.Close()
		}
		return
	}
	tjs, _ := filepath.Glob(filepath.Join(src, "*", "truth.json"))
	sort.Strings(tjs)
	for _, tj := range tjs {
		dir := filepath.Dir(tj)
		tr, err := synth.LoadTruth(dir)
		require.NoError(t, err)
		for _, pl := range tr.Players {
			img, err := ReadImage(filepath.Join(dir, pl.Sheet.File))
			require.NoError(t, err)
			each(freshDiagPhoto{name: filepath.Base(src) + "/" + filepath.Base(dir) + "/" + pl.Sheet.File, img: img, truth: tr, sheet: pl.Sheet, dir: dir, tears: pl.Tears})
			img.Close()
		}
	}
}

// TestFreshCornersDiag (VISION_FRESHDIAG=src[,src...], each a folder of synthetic cases or
// seed:N:M, the fresh photos of a generated set: freshDiagSource) runs Fresh on every fresh
// photo that shows the whole sheet and logs its largest corner error against the truth's
// corners_px (and as a share of the diagonal), worst last, with the smallest colour step
// across a side found (minSideStep) and each photo's time; then the share found, the corner
// errors' percentiles and the refusals by cause. Issue 3: the sheet found on every photo where
// it is wholly visible, every corner within 1% of the diagonal. A diagnostic: it fails only on
// a photo it cannot read. For example
//
//	VISION_FRESHDIAG=seed:20:40,seed:21:40 OMP_THREAD_LIMIT=1 go test -tags matprofile -run TestFreshCornersDiag -v -timeout 60m ./vision/
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
		second  string // secondSheetEvidence
	}
	var rows, laterRows []row
	later := os.Getenv("VISION_FRESHDIAG_LATER") != ""
	for _, src := range strings.Split(sets, ",") {
		freshDiagSource(t, src, func(ph freshDiagPhoto) {
			if ph.sheet.CutOff {
				return
			}
			var want [4]pt
			for i, c := range ph.sheet.CornersPx {
				want[i] = pt{c[0], c[1]}
			}
			diag := math.Max(dist(want[0], want[2]), dist(want[1], want[3]))
			img := ph.img
			t0 := time.Now()
			s, err := Fresh(img, truthPaper(ph.truth))
			el := time.Since(t0)
			r := row{name: ph.name + " (" + ph.sheet.Background + ")", elapsed: el}
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
				p := truthPaper(ph.truth)
				r.aspect = fmt.Sprintf("aspect %.3f-%.3f (%s %.3f)", lo, hi, p.Name, p.WidthMM/p.HeightMM)
				defer s.Close()
			}
			r.second = secondSheetEvidence(img)
			t.Logf("%-50s corner error %7.1f px (%.2f%%) %s%s", r.name, r.err, 100*r.rel, r.why, r.second)
			rows = append(rows, r)
			if s == nil || !later || ph.dir == "" {
				return
			}
			for _, tt := range ph.tears {
				if tt.Photo.CutOff {
					continue
				}
				var want [4]pt
				for i, c := range tt.Photo.CornersPx {
					want[i] = pt{c[0], c[1]}
				}
				diag := math.Max(dist(want[0], want[2]), dist(want[1], want[3]))
				im, err := ReadImage(filepath.Join(ph.dir, tt.Photo.File))
				require.NoError(t, err)
				t0 := time.Now()
				rs, err := Register(s, im)
				lr := row{name: filepath.Base(filepath.Dir(ph.dir)) + "/" + filepath.Base(ph.dir) + "/" + tt.Photo.File + " (" + tt.Photo.Background + ")", elapsed: time.Since(t0)}
				if err != nil {
					lr.err, lr.rel, lr.why = math.Inf(1), math.Inf(1), err.Error()
				} else {
					lr.err = freshCornerError(rs, want)
					lr.rel = lr.err / diag
				}
				if rs != nil {
					rs.Close()
				}
				im.Close()
				t.Logf("%-50s corner error %7.1f px (%.2f%%) %s", lr.name, lr.err, 100*lr.rel, lr.why)
				laterRows = append(laterRows, lr)
			}
		})
	}
	summary := func(what string, rows []row) {
		sort.Slice(rows, func(i, j int) bool { return rows[i].rel < rows[j].rel })
		bad, found := 0, 0
		var rels []float64
		why := map[string]int{}
		for _, r := range rows {
			if r.rel >= 0.01 {
				bad++
			}
			if r.why == "" {
				found++
				rels = append(rels, 100*r.rel)
			} else {
				why[refusalClass(r.why)]++
			}
			t.Logf("%-50s corner error %7.1f px (%.2f%% of diagonal), side step %3.0f, %s, %4d ms %s%s", r.name, r.err, 100*r.rel, r.step, r.aspect, r.elapsed.Milliseconds(), r.why, r.second)
		}
		pc := func(q float64) float64 {
			if len(rels) == 0 {
				return math.NaN()
			}
			return rels[min(len(rels)-1, int(q*float64(len(rels))))]
		}
		t.Logf("%d %s photos, %d with a corner 1%% of the diagonal or more off (or not found)", len(rows), what, bad)
		t.Logf("%s: found %d/%d (%.1f%%); corner error %% of diagonal: median %.3f, 90th %.3f, 99th %.3f, max %.3f", what, found, len(rows), 100*float64(found)/math.Max(1, float64(len(rows))), pc(0.5), pc(0.9), pc(0.99), pc(1))
		for w, n := range why {
			t.Logf("%s refused %d: %s", what, n, w)
		}
	}
	summary("fresh", rows)
	if later {
		summary("later (registered to the fresh sheet)", laterRows)
	}
}

// secondSheetEvidence describes the colour models' (locate's) second sizable region when it
// is over 30% of the largest's area (severalSheets' limit), as pickSheet sees it: its share of
// the largest, fill and support (sheetLike wants over 0.93 and 0.7) and share of its outline on
// the photo's border, and the smallest colour step across its sides (pickSheetIn); "" when
// there is none. A one-sheet photo refused as two sheets has one
// that passes; the margin of those that do not shows how near the others come.
func secondSheetEvidence(img gocv.Mat) string {
	l, err := locate(img, nil, workLong, true)
	if err != nil {
		return ""
	}
	var big []*region
	for i := range l.regions {
		if l.sizable(&l.regions[i]) {
			big = append(big, &l.regions[i])
		}
	}
	if len(big) < 2 || big[1].area <= 0.3*big[0].area {
		return ""
	}
	r := big[1]
	q := l.photoQuad(r)
	return fmt.Sprintf(" [second region %.2f of the first, fill %.2f support %.2f border %.2f sheetLike %v side step %.0f]", r.area/big[0].area, r.fill, r.support, r.touches, r.sheetLike(), minSideStep(u8view(img), img.Cols(), img.Rows(), q))
}

// refusalClass is an error's text with its numbers as # and cut at 90 characters: refusals
// that differ only in where and how much count together.
func refusalClass(e string) string {
	var b strings.Builder
	digit := false
	for _, c := range e {
		isD := c >= '0' && c <= '9' || c == '.' && digit
		if isD && !digit {
			b.WriteByte('#')
		}
		digit = isD
		if !isD {
			b.WriteRune(c)
		}
	}
	out := b.String()
	if len(out) > 90 {
		out = out[:90]
	}
	return out
}
