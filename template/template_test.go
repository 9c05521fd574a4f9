package template

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDefaultTemplate(t *testing.T) {
	d := Default()
	require.NoError(t, d.Validate())
	// 1.5 in x 1 in = 38.1 mm x 25.4 mm = 967.74 mm².
	assert.InDelta(t, 967.74, d.AreaMM2(), 1e-9)
}

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		json    string
		wantErr error
		area    float64 // expected area in mm², by the shoelace formula worked by hand
	}{
		{"triangle", `{"name":"tri","polygon_mm":[[0,0],[40,0],[0,30]]}`, nil, 600},
		{"unnamed", `{"polygon_mm":[[0,0],[10,0],[10,10],[0,10]]}`, nil, 100},
		{"two points", `{"polygon_mm":[[0,0],[10,0]]}`, ErrTooFewPoints, 0},
		{"collinear", `{"polygon_mm":[[0,0],[10,0],[20,0]]}`, ErrZeroArea, 0},
		{"bow tie", `{"polygon_mm":[[0,0],[10,10],[10,0],[0,10]]}`, ErrSelfIntersects, 0},
		{"huge", `{"polygon_mm":[[0,0],[5000,0],[0,10]]}`, ErrTooLarge, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tp, err := Parse([]byte(tc.json))
			if tc.wantErr != nil {
				assert.ErrorIs(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.InDelta(t, tc.area, tp.AreaMM2(), 1e-9)
		})
	}
	_, err := Parse([]byte(`not json`))
	assert.Error(t, err)
	// A misspelt key is named, not read as a template without a polygon.
	_, err = Parse([]byte(`{"name":"x","polygon":[[0,0],[40,0],[40,30],[0,30]]}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `unknown field "polygon"`)
	assert.NotErrorIs(t, err, ErrTooFewPoints)
	_, err = Parse([]byte(`{"polygon_mm":[[0,0],[10,0],[0,10]]} {"polygon_mm":[]}`))
	assert.ErrorContains(t, err, "more than one JSON value")
}

// TestParseIsStrict: what Go's decoder lets pass is refused, in one line naming the problem:
// a key in another case (Go matches keys case-insensitively), a point with three coordinates
// or one (a [2]float64 keeps the first two, or pads with 0), a key given twice (the last won).
func TestParseIsStrict(t *testing.T) {
	cases := []struct {
		name, json, want string
	}{
		{"key in another case", `{"name":"t","polygon_mm":[[0,0],[30,0],[30,20],[0,20]],"Polygon_MM":[[0,0]]}`,
			`unknown field "Polygon_MM" (the keys are "name" and "polygon_mm", spelt so)`},
		{"only a key in another case", `{"NAME":"t","polygon_mm":[[0,0],[30,0],[30,20],[0,20]]}`, `unknown field "NAME"`},
		{"three coordinates", `{"name":"t","polygon_mm":[[0,0],[30,0,5],[30,20],[0,20]]}`,
			`"polygon_mm" point 2 has 3 coordinates, want 2 ([x, y] in mm)`},
		{"one coordinate", `{"polygon_mm":[[0,0],[30],[30,20],[0,20]]}`, `"polygon_mm" point 2 has 1 coordinates`},
		{"not a point list", `{"polygon_mm":[0,0,30,0]}`, `"polygon_mm": want a list of [x, y] points in mm`},
		{"name not a string", `{"name":5,"polygon_mm":[[0,0],[30,0],[30,20]]}`, `"name": want a string`},
		{"key twice", `{"polygon_mm":[[0,0],[1,0],[0,1]],"name":"a","polygon_mm":[[0,0],[30,0],[30,20]]}`, `key "polygon_mm" given twice`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.json))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.NotContains(t, err.Error(), "\n")
		})
	}
	// The same keys inside points or twice in nested values are fine; the file is named.
	tp, err := Parse([]byte(`{"name":"tri","polygon_mm":[[0,0],[30,0],[0,20]]}`))
	require.NoError(t, err)
	assert.Equal(t, Template{Name: "tri", PolygonMM: [][2]float64{{0, 0}, {30, 0}, {0, 20}}}, tp)
	path := filepath.Join(t.TempDir(), "tpl-3d.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"name":"t","polygon_mm":[[0,0],[30,0,5],[30,20],[0,20]]}`), 0o644))
	_, err = Load(path)
	assert.EqualError(t, err, "template "+path+`: parse template json: "polygon_mm" point 2 has 3 coordinates, want 2 ([x, y] in mm)`)
}

func TestApplyRotatesAndFlips(t *testing.T) {
	tp := Default()
	// A quarter turn maps (38.1, 0) to (0, 38.1); a flip first maps it to (-38.1, 0), then (0, -38.1).
	got := tp.Apply(Placement{AngleDeg: 90})
	assert.InDelta(t, 0, got[1][0], 1e-9)
	assert.InDelta(t, 38.1, got[1][1], 1e-9)
	got = tp.Apply(Placement{AngleDeg: 90, Flipped: true, TxMM: 1, TyMM: 2})
	assert.InDelta(t, 1, got[1][0], 1e-9)
	assert.InDelta(t, 2-38.1, got[1][1], 1e-9)
	assert.False(t, math.IsNaN(got[2][0]))
}

func TestParsePaper(t *testing.T) {
	tests := []struct {
		in   string
		w, h float64
		ok   bool
	}{
		{"a4", 210, 297, true}, {"", 210, 297, true}, {"LETTER", 215.9, 279.4, true},
		{"100x150", 100, 150, true}, {"100", 0, 0, false}, {"5x5", 0, 0, false}, {"ax4", 0, 0, false},
		{" 215.9 X 279.4 ", 215.9, 279.4, true}, {"1e3x1e3", 0, 0, false}, {"0x1p7x200", 0, 0, false},
		{"1_000x200", 0, 0, false}, {"Infx200", 0, 0, false}, {"-210x297", 0, 0, false}, {"210.x297", 0, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			p, err := ParsePaper(tc.in)
			if !tc.ok {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.w, p.WidthMM)
			assert.Equal(t, tc.h, p.HeightMM)
		})
	}
}

// carver is the closed-form test for a p x q rectangle fitting in an a x b rectangle (Carver,
// 1956; p >= q, a >= b): upright, or tilted when p > a, q <= b and
// ((a+b)/(p+q))² + ((a-b)/(p-q))² >= 2.
func carver(p, q, a, b float64) bool {
	if p < q {
		p, q = q, p
	}
	if a < b {
		a, b = b, a
	}
	if p <= a && q <= b {
		return true
	}
	if p > a && q <= b && p != q {
		x, y := (a+b)/(p+q), (a-b)/(p-q)
		return x*x+y*y >= 2
	}
	return false
}

func TestFitsOn(t *testing.T) {
	a4 := Paper{Name: "a4", WidthMM: 210, HeightMM: 297}
	assert.True(t, Default().FitsOn(a4))
	assert.NoError(t, Default().CheckPaper(a4))
	huge := Template{Name: "huge", PolygonMM: [][2]float64{{0, 0}, {1000, 0}, {1000, 1000}, {0, 1000}}}
	assert.False(t, huge.FitsOn(a4))
	assert.EqualError(t, huge.CheckPaper(a4), `template "huge" (1000.0 x 1000.0 mm) does not fit on the paper a4 (210 x 297 mm)`)
	// Long thin rectangles that fit only along the diagonal, against the closed form; the
	// cases stay 0.5 mm away from the boundary, beyond the 0.25° search step's error.
	for _, c := range []struct{ p, q float64 }{{300, 10}, {340, 20}, {340, 40}, {360, 2}, {310, 50}, {300, 215}, {298, 100}, {250, 220}} {
		want := carver(c.p, c.q, 210, 297)
		rect := Template{Name: "r", PolygonMM: [][2]float64{{0, 0}, {c.p, 0}, {c.p, c.q}, {0, c.q}}}
		assert.Equal(t, want, rect.FitsOn(a4), "%g x %g", c.p, c.q)
	}
}
