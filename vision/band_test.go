package vision

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"tearcam/judge"
	"tearcam/template"
)

// TestMeasureEdgeBand: paper missing in a thin band along the sheet's outline (curled
// corners, a bowed side, misregistration) is no piece; a deeper band in doubt is a structured
// doubt, not a fault; real tears along the edge still count.
func TestMeasureEdgeBand(t *testing.T) {
	p := template.Paper{Name: "150x200", WidthMM: 150, HeightMM: 200}
	sz := frameSize(p, DefaultPxPerMM)
	full := []pt{{0, 0}, {150, 0}, {150, 200}, {0, 200}}
	curl := []pt{{150, 0}, {150, 7.5}, {142.5, 0}} // curled corner, 28 mm², 1.1 mm² deeper than 3 mm
	fringe := rectPoly(0, 40, 2.5, 80, 0)          // 200 mm² strip along the left side
	bottom := rectPoly(20, 197.75, 100, 2.25, 0)   // 225 mm² strip along the bottom
	doubt := rectPoly(150-3.25, 100, 3.25, 16, 0)  // 52 mm², barely deeper than the band
	corner := []pt{{0, 0}, {40, 0}, {0, 30}}       // a real corner tear, 600 mm²
	strip := rectPoly(0, 150, 150, 6, 0)           // a real strip torn across, 900 mm²
	cases := []struct {
		name   string
		holes  [][]pt
		pieces int
		area   float64
		about  judge.Quantity // expected structured doubt ("" none)
		// ignored is the missing paper (mm²) the ruling's note says was ignored, 0 for no note:
		// the rule on what is not counted is stated only where something was not counted.
		ignored float64
	}{
		{"curl and fringe", [][]pt{curl, fringe, bottom}, 0, 0, "", polyArea(curl) + polyArea(fringe) + polyArea(bottom)},
		{"band in doubt", [][]pt{doubt}, 0, 0, judge.AboutRemoved, 0},
		{"corner tear and fringe", [][]pt{corner, fringe, curl}, 1, polyArea(corner), "", polyArea(fringe) + polyArea(curl)},
		{"corner tear and band in doubt", [][]pt{corner, doubt}, 1, polyArea(corner), judge.AboutPieces, 0},
		{"strip across", [][]pt{strip}, 1, polyArea(strip), "", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bm := polyMask(sz.X, sz.Y, DefaultPxPerMM, [][]pt{full}, nil)
			am := polyMask(sz.X, sz.Y, DefaultPxPerMM, [][]pt{full}, tc.holes)
			before, after := sheetFromMask(bm, p), sheetFromMask(am, p)
			defer before.Close()
			defer after.Close()
			r, err := Measure(before, after, nil, template.Default())
			require.NoError(t, err)
			defer r.Close()
			assert.Equal(t, tc.pieces, r.Pieces, "pieces")
			assert.InDelta(t, tc.area, r.AreaMM2, 0.05*tc.area+2, "area") // the rasteriser fills both boundary rows
			var got []judge.Quantity
			for _, u := range r.Measurement.Uncertain {
				got = append(got, u.About)
			}
			if tc.about == "" {
				assert.Empty(t, got, "doubts %v", r.Measurement.Uncertain)
			} else {
				assert.Equal(t, []judge.Quantity{tc.about}, got, "doubts")
			}
			var notes []string
			for _, n := range r.Measurement.Notes {
				if strings.Contains(n, "not counted") {
					notes = append(notes, n)
				}
			}
			if tc.ignored == 0 {
				assert.Empty(t, notes)
				return
			}
			require.Len(t, notes, 1, "%v", r.Measurement.Notes)
			var mm2 float64
			_, err = fmt.Sscanf(notes[0], "%g mm² of missing paper", &mm2)
			require.NoError(t, err, notes[0])
			// The pixels the piece's area allows for (above) may be counted here instead.
			assert.InDelta(t, tc.ignored, mm2, 0.05*tc.ignored+2+0.05*tc.area, notes[0])
			assert.Contains(t, notes[0], "pieces below 25 mm²")
		})
	}
}
