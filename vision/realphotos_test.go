package vision

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"tearcam/template"
)

// TestRealPhotos runs Fresh on the real photos in ../shared/realdata (skipped without them):
// every wholly visible sheet must be found; the strips of the cut poster are not one sheet.
// Corner accuracy on these was checked by eye on full-resolution crops (vision/README.md).
func TestRealPhotos(t *testing.T) {
	d := realDir(t)
	a4 := template.Paper{Name: "a4", WidthMM: 210, HeightMM: 297}
	cases := []struct {
		file string
		want error // nil: a sheet is found
	}{
		{"sheets/breta_page01.jpg", nil},
		{"sheets/breta_page09.jpg", nil},
		{"sheets/breta_test1.jpg", nil},
		{"sheets/breta_test5.jpg", nil},
		{"sheets/cc0_a4-on-dark-background.jpg", nil},
		{"sheets/cc0_a4-on-white-background.jpg", nil}, // low contrast: GrabCut fallback
		{"sheets/cc0_inner-table.jpg", nil},
		{"sheets/docscan_doc-1.jpg", nil},
		{"sheets/docscan_doc-3.jpg", nil},
		{"sheets/jscanify_test10.jpg", nil},
		{"sheets/jscanify_test2.png", nil},
		{"torn/antishredder_input_img_1.jpg", ErrNoSheet},
	}
	for _, tc := range cases {
		t.Run(filepath.Base(tc.file), func(t *testing.T) {
			img, err := ReadImage(filepath.Join(d, tc.file))
			require.NoError(t, err)
			defer img.Close()
			s, err := Fresh(img, a4)
			if tc.want != nil {
				assert.True(t, errors.Is(err, tc.want) || errors.Is(err, ErrSeveralSheets), "got %v", err)
				return
			}
			require.NoError(t, err)
			defer s.Close()
			// The sheet is inside the photo and big enough to be the subject.
			q := [4]pt{}
			for i, c := range s.Corners {
				q[i] = ptOf(c)
				assert.True(t, q[i].X >= 0 && q[i].Y >= 0 && q[i].X < float64(img.Cols()) && q[i].Y < float64(img.Rows()))
			}
			assert.Greater(t, polyArea(q[:]), 0.2*float64(img.Cols()*img.Rows()))
		})
	}
}
