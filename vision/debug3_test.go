package vision

import (
	"os"
	"testing"

	"gocv.io/x/gocv"
)

func TestOneDebug(t *testing.T) {
	f := os.Getenv("VISION_FILE")
	if f == "" {
		t.Skip()
	}
	img, _ := ReadImage(f)
	defer img.Close()
	for k, l := range []*located{must(locate(img, nil, workLong)), locateGrabCut(img)} {
		m := newMask(l.w, l.h, l.mask)
		gocv.IMWrite("/tmp/v/one_"+string(rune('a'+k))+".png", m)
		m.Close()
		for i, r := range l.regions {
			t.Logf("%d region %d area %.2f quadOK %v quadness %.3f sideFit %.3f touches %.3f fill %.3f support %.3f cut %v", k, i, r.area/float64(l.w*l.h), r.quadOK, r.quadness, r.sideFit, r.touches, r.fill, r.support, cutOff(&r, l.w, l.h))
		}
		_, err := pickSheet(l)
		t.Logf("pick: %v", err)
	}
}

func must(l *located, err error) *located {
	if err != nil {
		panic(err)
	}
	return l
}
