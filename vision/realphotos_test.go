package vision

import (
	"errors"
	"image"
	"image/color"
	"math"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gocv.io/x/gocv"

	"tearcam/template"
)

// TestRealPhotos runs Fresh on the real photos in ../shared/realdata (skipped without them):
// every wholly visible sheet must be found; the strips of the cut poster are not one sheet,
// and a leaflet declared as A4 is refused for its shape.
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
		{"sheets/docscan_doc-1.jpg", ErrPaperSize}, // a tall folded leaflet, not A4 (about 0.36:1)
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
				if tc.want == ErrPaperSize {
					// Declared with its own shape, the same sheet is found.
					s, err := Fresh(img, template.Paper{Name: "100x280", WidthMM: 100, HeightMM: 280})
					require.NoError(t, err)
					s.Close()
				}
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

// TestRegisterRealPhoto registers a real photo to a turned (about 170°), tilted and shrunk
// copy of itself: the copy's homography Q is known, so the truth for the sheet is Q∘fresh.H.
func TestRegisterRealPhoto(t *testing.T) {
	d := realDir(t)
	for _, name := range []string{"sheets/breta_page09.jpg", "sheets/jscanify_test10.jpg"} {
		t.Run(filepath.Base(name), func(t *testing.T) {
			img, err := ReadImage(filepath.Join(d, name))
			require.NoError(t, err)
			defer img.Close()
			fresh, err := Fresh(img, template.Paper{Name: "a4", WidthMM: 210, HeightMM: 297})
			require.NoError(t, err)
			defer fresh.Close()
			w, h := float64(img.Cols()), float64(img.Rows())
			src := [4]pt{{0, 0}, {w, 0}, {w, h}, {0, h}}
			dst := [4]pt{{0.93 * w, 0.95 * h}, {0.08 * w, 0.9 * h}, {0.05 * w, 0.07 * h}, {0.9 * w, 0.04 * h}}
			q := homographyFrom4(src, dst)
			qm := q.mat()
			defer qm.Close()
			turned := gocv.NewMat()
			defer turned.Close()
			gocv.WarpPerspectiveWithParams(img, &turned, qm, image.Pt(img.Cols(), img.Rows()), gocv.InterpolationLinear, gocv.BorderReplicate, color.RGBA{})
			after, err := Register(fresh, turned)
			require.NoError(t, err)
			defer after.Close()
			truth := q.mul(homog(fresh.H))
			worst := 0.0
			for _, p := range []pt{{0, 0}, {210, 0}, {210, 297}, {0, 297}, {105, 148}} {
				// error in mm: map the truth photo point back through our registration
				worst = math.Max(worst, dist(homog(after.H).inv().apply(truth.apply(p)), p))
			}
			t.Logf("residual %.3f mm, true error %.3f mm, %v", after.ResidualMM, worst, after.Notes)
			assert.Less(t, worst, 1.0)
			assert.Less(t, after.ResidualMM, 1.0)
			r, err := Measure(fresh, after, nil, template.Default())
			require.NoError(t, err)
			defer r.Close()
			assert.Less(t, r.AreaMM2, 100.0, "nothing was torn")
			assert.Equal(t, 0, r.Pieces)
		})
	}
}
