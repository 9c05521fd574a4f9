package vision

import (
	"image"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"gocv.io/x/gocv"

	"tearcam/internal/realdata"
	"tearcam/template"
)

// realDir is the folder of the real photos (internal/realdata: TEARCAM_REALDATA, else
// shared/realdata above the working directory, else /work/shared/realdata); tests using it
// skip without it.
func realDir(t testing.TB) string { return realdata.Dir(t) }

func TestRealDebug(t *testing.T) {
	if os.Getenv("VISION_DEBUG") == "" {
		t.Skip("debug only")
	}
	d := realDir(t)
	files, _ := filepath.Glob(filepath.Join(d, "sheets", "*.*g"))
	files = append(files, filepath.Join(d, "torn", "antishredder_input_img_1.jpg"))
	a4, _ := template.ParsePaper("a4")
	for _, f := range files {
		img, err := ReadImage(f)
		require.NoError(t, err)
		s, err := Fresh(img, a4)
		if err != nil {
			t.Logf("%s: %v", filepath.Base(f), err)
		} else {
			t.Logf("%s: corners %v notes %v", filepath.Base(f), s.Corners, s.Notes)
			ov := img.Clone()
			for k := 0; k < 4; k++ {
				gocv.Line(&ov, ptOf(s.Corners[k]).img(), ptOf(s.Corners[(k+1)%4]).img(), colorRGBA(255, 0, 0), max(2, img.Cols()/300))
			}
			gocv.Circle(&ov, ptOf(s.Corners[0]).img(), img.Cols()/60, colorRGBA(0, 255, 0), -1)
			gocv.Resize(ov, &ov, image.Pt(400, 400*img.Rows()/img.Cols()), 0, 0, gocv.InterpolationArea)
			gocv.IMWrite("/tmp/v/ov_"+filepath.Base(f)+".png", ov)
			ov.Close()
			small := gocv.NewMat()
			gocv.Resize(s.Image, &small, s.SizePx().Div(3), 0, 0, gocv.InterpolationArea)
			gocv.IMWrite("/tmp/v/fresh_"+filepath.Base(f)+".png", small)
			small.Close()
			s.Close()
		}
		img.Close()
	}
}
