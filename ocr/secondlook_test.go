package ocr

import (
	"math"
	"testing"
)

// TestSecondLook: the last look at a candidate for a missing skill reads the orientation
// most like it again at another size and along its baseline (2 + 6x2 views); when that
// orientation reads no better than a chance likeness, the other way up too, at another size
// and turned by 4 and 8 degrees either way (2 + 4x2 more). The reads are those of
// lead-synth11 case-019 "Dancing" (dkg, cap 5.2 mm): "rop" and "Brey" at -74 degrees,
// "Gaot" and "aots" at 106; it read "Dorcings" (58%) at -82 (see secondLook).
func TestSecondLook(t *testing.T) {
	reg := func(deg float64) *region {
		th := deg * math.Pi / 180
		return &region{ux: math.Cos(th), uy: math.Sin(th), pix: []int32{0}}
	}
	deg := func(rg *region) float64 {
		return math.Mod(rg.angle()*180/math.Pi+540, 360) - 180
	}
	im := &inkMap{w: 100}
	cases := []struct {
		name      string
		downReads [2]string // at 106 degrees
		want      int
		turned    bool // a view at -82 degrees among them
	}{
		// Most like the name at 106 degrees ("Gaot"), at 14%: -74 read too, turned by 8.
		{"read like nothing", [2]string{"Gaot", "aots"}, 24, true},
		{"read like the name", [2]string{"Dancng", "Dancing"}, 14, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			up, down := reg(-74), reg(106)
			cand := &candidate{rg: up, views: []*view{
				{rg: up, psm: "7", rd: &reading{text: "rop"}},
				{rg: up, psm: "13", rd: &reading{text: "Brey"}},
				{rg: down, psm: "7", rd: &reading{text: c.downReads[0]}},
				{rg: down, psm: "13", rd: &reading{text: c.downReads[1]}},
			}}
			views := im.secondLook(cand, []string{foldLetters("Dancing")})
			if zv, _ := cand.likeliest([]string{foldLetters("Dancing")}); zv.rg != down {
				t.Fatalf("likeliest way up at %.0f degrees, want 106", deg(zv.rg))
			}
			if len(views) != c.want {
				t.Errorf("%d views, want %d", len(views), c.want)
			}
			at := func(d float64) bool {
				for _, v := range views {
					if math.Abs(deg(v.rg)-d) < 0.5 {
						return true
					}
				}
				return false
			}
			if got := at(-82); got != c.turned {
				t.Errorf("a view at -82 degrees: %v, want %v", got, c.turned)
			}
		})
	}
}
