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

func TestRegDebug(t *testing.T) {
	f0, f1 := os.Getenv("VISION_FRESH"), os.Getenv("VISION_AFTER")
	if f0 == "" {
		t.Skip()
	}
	a, _ := ReadImage(f0)
	defer a.Close()
	b, _ := ReadImage(f1)
	defer b.Close()
	fr, err := Fresh(a, a4)
	if err != nil {
		t.Fatal(err)
	}
	defer fr.Close()
	r, err := Register(fr, b)
	t.Logf("%v", err)
	if r != nil {
		t.Logf("%v %v", r.ResidualMM, r.Notes)
		r.Close()
	}
}
