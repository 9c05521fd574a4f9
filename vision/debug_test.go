package vision

import (
	"image/color"
	"os"
	"path/filepath"
	"testing"

	"gocv.io/x/gocv"
)

func TestLocateDebug(t *testing.T) {
	if os.Getenv("VISION_DEBUG") == "" {
		t.Skip("debug only")
	}
	d := realDir(t)
	files, _ := filepath.Glob(filepath.Join(d, "sheets", "*.*g"))
	files = append(files, filepath.Join(d, "torn", "antishredder_input_img_1.jpg"))
	for _, f := range files {
		img, _ := ReadImage(f)
		l, err := locate(img, nil, workLong, true)
		img.Close()
		if err != nil {
			t.Logf("%s: %v", filepath.Base(f), err)
			continue
		}
		m := newMask(l.w, l.h, l.mask)
		c := gocv.NewMat()
		gocv.CvtColor(m, &c, gocv.ColorGrayToBGR)
		m.Close()
		for i, r := range l.regions {
			t.Logf("%s: region %d area %.0f (%.2f) quadOK %v quadness %.3f sideFit %.3f touches %.3f", filepath.Base(f), i, r.area, r.area/float64(l.w*l.h), r.quadOK, r.quadness, r.sideFit, r.touches)
			for k := 0; k < 4; k++ {
				gocv.Line(&c, r.quad[k].img(), r.quad[(k+1)%4].img(), color.RGBA{255, 0, 0, 0}, 2)
			}
		}
		gocv.IMWrite("/tmp/v/loc_"+filepath.Base(f)+".png", c)
		c.Close()
	}
}
