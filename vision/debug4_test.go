package vision

import (
	"fmt"
	"image"
	"os"
	"path/filepath"
	"testing"

	"gocv.io/x/gocv"
)

// TestCornerCrops writes, per real photo, crops around the four corners Fresh found (for
// checking by eye). VISION_DEBUG only.
func TestCornerCrops(t *testing.T) {
	if os.Getenv("VISION_DEBUG") == "" {
		t.Skip("debug only")
	}
	d := realDir(t)
	files, _ := filepath.Glob(filepath.Join(d, "sheets", "*.*g"))
	for _, f := range files {
		img, _ := ReadImage(f)
		s, err := Fresh(img, a4)
		if err != nil {
			img.Close()
			continue
		}
		diag := dist(ptOf(s.Corners[0]), ptOf(s.Corners[2]))
		r := int(diag * 0.02) // crop half-size: 2% of the diagonal
		var crops []gocv.Mat
		for _, c := range s.Corners {
			p := ptOf(c).img()
			rect := image.Rect(p.X-r, p.Y-r, p.X+r, p.Y+r).Intersect(image.Rect(0, 0, img.Cols(), img.Rows()))
			roi := img.Region(rect)
			cp := roi.Clone()
			roi.Close()
			q := p.Sub(rect.Min)
			gocv.Line(&cp, q.Add(image.Pt(-r/4, 0)), q.Add(image.Pt(r/4, 0)), colorRGBA(255, 0, 0), 1)
			gocv.Line(&cp, q.Add(image.Pt(0, -r/4)), q.Add(image.Pt(0, r/4)), colorRGBA(255, 0, 0), 1)
			// 1% of the diagonal, for scale
			gocv.Circle(&cp, q, int(diag*0.01), colorRGBA(0, 255, 0), 1)
			gocv.Resize(cp, &cp, image.Pt(200, 200), 0, 0, gocv.InterpolationNearestNeighbor)
			crops = append(crops, cp)
		}
		row := gocv.NewMat()
		gocv.Hconcat(crops[0], crops[1], &row)
		gocv.Hconcat(row, crops[2], &row)
		gocv.Hconcat(row, crops[3], &row)
		gocv.IMWrite(fmt.Sprintf("/tmp/v/cc_%s.png", filepath.Base(f)), row)
		row.Close()
		for _, c := range crops {
			c.Close()
		}
		s.Close()
		img.Close()
	}
}
