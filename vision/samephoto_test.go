package vision

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"tearcam/template"
)

// TestSamePhotoNothingRemoved registers every real sheet to its own photo: nothing was torn,
// so Measure must find no piece and (within a few mm²) no area. The sheets' curled corners
// and edge fringe must not become pieces.
func TestSamePhotoNothingRemoved(t *testing.T) {
	d := realDir(t)
	files, _ := filepath.Glob(filepath.Join(d, "sheets", "*.*g"))
	require.NotEmpty(t, files)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			img, err := ReadImage(f)
			require.NoError(t, err)
			defer img.Close()
			fresh, err := Fresh(img, a4)
			if err != nil {
				t.Skipf("no fresh sheet: %v", err)
			}
			defer fresh.Close()
			after, err := Register(fresh, img)
			if err != nil {
				t.Skipf("register refused: %v", err)
			}
			defer after.Close()
			r, err := Measure(fresh, after, nil, template.Default())
			require.NoError(t, err)
			defer r.Close()
			t.Logf("residual %.2f pieces %d area %.1f uncertain %v doubts %v", after.ResidualMM, r.Pieces, r.AreaMM2, r.Measurement.Uncertain, r.Measurement.Doubts)
			assert.Equal(t, 0, r.Pieces, "pieces")
			assert.Less(t, r.AreaMM2, 5.0, "area")
		})
	}
}
