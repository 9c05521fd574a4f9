package vision

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRegisterWholePhotoFeatures: a torn sheet close up on a pale table (seed 5 case-003
// jun-3.jpg, after three tears). The colour models at 320 px gave the lower half of the sheet,
// with "Herbalism" and "Wrestling", to the table, and the photo's features are looked for on
// the paper only: 6 matched the fresh sheet and the photo was refused. Once refused, the
// features of the whole photo are tried: 147 consistent matches, 26 ink patches, true error
// 0.27 mm on the paper left (truth.json's homographies), residual 0.25 mm.
func TestRegisterWholePhotoFeatures(t *testing.T) {
	pl, fresh, register := bundledCase(t, "seed5-case003")
	defer fresh.Close()
	tt := pl.Tears[2]
	after := register(tt.Photo.File)
	defer after.Close()
	e := synthRegErr(fresh, after, homog(pl.Sheet.Homography), homog(tt.Photo.Homography), fresh.Paper)
	t.Logf("true error %.2f mm, residual %.2f mm, %v", e, after.ResidualMM, after.Notes)
	require.Less(t, e, 0.5, "true error on the paper left")
	require.LessOrEqual(t, after.ResidualMM, MaxResidualMM)
	// The residual is an honest measure: not far below the true error.
	require.Greater(t, after.ResidualMM+0.25, e)
}
