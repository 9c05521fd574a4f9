package ocr

import (
	"math"
	"path/filepath"
	"testing"

	"tearcam/internal/synth"
	"tearcam/judge"
	"tearcam/vision"
)

// TestSampleSkillsLocated locates the four words of the bundled sample (a real photo of
// "Text written by hand" in joined-up pen, testdata/images/sample) as the referee does, and
// checks that each is found on its own word: the centre of its letters within 10 mm of the
// truth's (words are 12-25 mm high and lie 25 mm or more apart). "written" reads 39-52% like
// the name depending on a grey level of stroke, and was lost when the sheet-wide ink threshold
// moved (commit 3cbed05); a second look at another size finds it.
func TestSampleSkillsLocated(t *testing.T) {
	l := newTestLocator(t)
	n := 0
	ForEachFreshSheet(t, filepath.Join("..", "testdata", "images"), func(caseDir string, pt synth.PlayerTruth, fresh *vision.SheetImage) {
		n++
		names := truthNames(pt)
		lays, err := l.Locate(fresh.Image, fresh.Mask, fresh.PxPerMM, names)
		if err != nil {
			t.Fatal(err)
		}
		toVis := photoToFrame(fresh)
		for k, sk := range pt.Skills {
			if lays[k].Located != len(sk.Letters) {
				t.Errorf("%q: located %d of %d letters, notes %q", sk.Name, lays[k].Located, len(sk.Letters), lays[k].Notes)
				continue
			}
			var mine, truth []judge.Point
			for i, le := range sk.Letters {
				mine = append(mine, lays[k].Letters[i].Outline...)
				for _, p := range le.OutlineMM {
					q := pt.Sheet.Homography.Apply(synth.Pt{X: p[0], Y: p[1]})
					truth = append(truth, toVis(q.X, q.Y))
				}
			}
			cm, ct := centroid(mine), centroid(truth)
			if d := math.Hypot(cm.X-ct.X, cm.Y-ct.Y); d > 10 {
				t.Errorf("%q: located %.1f mm from its word (confidence %.2f, notes %q)", sk.Name, d, lays[k].Confidence, lays[k].Notes)
			}
		}
	})
	if n != 1 {
		t.Fatalf("%d sample sheets found, want 1", n)
	}
}
