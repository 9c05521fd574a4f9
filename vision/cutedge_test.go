package vision

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCutOffPaperIntoZone: photos that cut the sheet off, where the paper runs into the zone
// along the photo's edge. The mask is cleared in the zone, so the paper there ended with its
// last pixel just outside it, and awayFromPhotoEdge, testing that pixel only, kept the edge
// samples there: a side read 3-6 mm inside along the photo's edge, the photos refused (seed 6
// case-003 goran-3 at 4.00 mm, held-out seed 9 case-011 dana-2 at 3.75 mm; three tears
// undecided). The pixel beside it on the outer side is tested too: both register, within
// 0.5 mm of the truth.
func TestCutOffPaperIntoZone(t *testing.T) {
	for _, tc := range []struct {
		name string
		tear int // 1-based
	}{{"seed6-case003", 3}, {"seed9-case011", 2}} {
		t.Run(tc.name, func(t *testing.T) {
			pl, fresh, _ := bundledCase(t, tc.name)
			defer fresh.Close()
			tt := pl.Tears[tc.tear-1]
			require.True(t, tt.Photo.CutOff, "the photo cuts the sheet off: the test does not test the zone")
			img, err := ReadImage("testdata/" + tc.name + "/" + tt.Photo.File)
			require.NoError(t, err)
			defer img.Close()
			s, err := Register(fresh, img)
			require.NoError(t, err, tt.Photo.File)
			defer s.Close()
			e := synthRegErr(fresh, s, homog(pl.Sheet.Homography), homog(tt.Photo.Homography), fresh.Paper)
			t.Logf("%s: residual %.2f mm, true error %.2f mm", tt.Photo.File, s.ResidualMM, e)
			assert.Less(t, e, 0.5)
			assert.True(t, s.Partial())
		})
	}
}
