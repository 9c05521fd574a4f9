package template

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
)

// Template is a closed polygon in millimetres that a removed piece must be able to cover
// (tear rules seed, "RULES FOR TEARING": "large enough to cover the entire template").
// The JSON form is {"name": "...", "polygon_mm": [[x, y], ...]} (DESIGN.md).
type Template struct {
	Name      string       `json:"name"`
	PolygonMM [][2]float64 `json:"polygon_mm"`
}

// DefaultWidthMM and DefaultHeightMM are the sides of the default template: a 1.5 x 1 inch
// rectangle (DESIGN.md "Definitions").
const (
	DefaultWidthMM  = 38.1
	DefaultHeightMM = 25.4
)

// Default returns the default template, the 38.1 x 25.4 mm rectangle with a corner at the origin.
func Default() Template {
	return Template{Name: "default", PolygonMM: [][2]float64{
		{0, 0}, {DefaultWidthMM, 0}, {DefaultWidthMM, DefaultHeightMM}, {0, DefaultHeightMM},
	}}
}

// Errors returned by Parse and Load; test with errors.Is.
var (
	ErrTooFewPoints   = errors.New("template polygon needs at least 3 points")
	ErrNotFinite      = errors.New("template polygon has a coordinate that is not a finite number")
	ErrZeroArea       = errors.New("template polygon has no area")
	ErrSelfIntersects = errors.New("template polygon crosses itself")
	ErrTooLarge       = errors.New("template polygon is larger than 1000 mm")
)

// Parse reads a template from its JSON form and validates it: only the keys "name" and
// "polygon_mm" (spelt exactly so, each once), one JSON value, at least three points of two
// finite coordinates each, a positive area, no self-intersection, under 1000 mm across. A
// template without a name is called "custom".
func Parse(data []byte) (Template, error) {
	// Go's decoder matches keys case-insensitively ("Polygon_MM" would fill polygon_mm) and
	// drops a point's third coordinate into [2]float64: the object is read key by key, and
	// each point as a list, so that neither passes unnoticed.
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&raw); err != nil {
		return Template{}, fmt.Errorf("parse template json: %w", err)
	}
	if dec.More() {
		return Template{}, fmt.Errorf("parse template json: more than one JSON value")
	}
	if err := uniqueKeys(data); err != nil {
		return Template{}, err
	}
	for _, k := range slices.Sorted(maps.Keys(raw)) {
		if k != "name" && k != "polygon_mm" {
			// A misspelt key ("polygon" for "polygon_mm") is named, not read as a missing polygon.
			return Template{}, fmt.Errorf("parse template json: unknown field %q (the keys are \"name\" and \"polygon_mm\", spelt so)", k)
		}
	}
	t := Template{}
	if v, ok := raw["name"]; ok {
		if err := json.Unmarshal(v, &t.Name); err != nil {
			return Template{}, fmt.Errorf("parse template json: \"name\": want a string")
		}
	}
	if v, ok := raw["polygon_mm"]; ok {
		var pts [][]float64
		if err := json.Unmarshal(v, &pts); err != nil {
			return Template{}, fmt.Errorf("parse template json: \"polygon_mm\": want a list of [x, y] points in mm")
		}
		for i, q := range pts {
			if len(q) != 2 {
				return Template{}, fmt.Errorf("parse template json: \"polygon_mm\" point %d has %d coordinates, want 2 ([x, y] in mm)", i+1, len(q))
			}
			t.PolygonMM = append(t.PolygonMM, [2]float64{q[0], q[1]})
		}
	}
	if t.Name == "" {
		t.Name = "custom"
	}
	if err := t.Validate(); err != nil {
		return Template{}, err
	}
	return t, nil
}

// uniqueKeys refuses a JSON object (data, valid JSON) that gives a top-level key twice
// (decoding keeps the last silently).
func uniqueKeys(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	seen := map[string]bool{}
	depth, wantKey := 0, false
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil // the end: data was decoded already
		}
		if d, ok := tok.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
				if depth == 1 {
					wantKey = d == '{'
				}
			} else if depth--; depth == 1 {
				wantKey = true // a nested value ended: a key comes next
			}
			continue
		}
		if depth != 1 {
			continue
		}
		if k, ok := tok.(string); ok && wantKey {
			if seen[k] {
				return fmt.Errorf("parse template json: key %q given twice", k)
			}
			seen[k], wantKey = true, false
			continue
		}
		wantKey = true // a value at the top level: a key comes next
	}
}

// Load reads and validates a template JSON file. "default" or "" gives Default().
// Errors name the file.
func Load(path string) (Template, error) {
	if path == "" || path == "default" {
		return Default(), nil
	}
	// Stat before reading: reading a FIFO waits for a writer for good (a tester).
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return Template{}, fmt.Errorf("template %s: not a regular file", path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return Template{}, fmt.Errorf("template %s: %w", path, err)
	}
	t, err := Parse(data)
	if err != nil {
		return Template{}, fmt.Errorf("template %s: %w", path, err)
	}
	return t, nil
}

// Validate reports why t is not a usable template, or nil.
func (t Template) Validate() error {
	p := t.PolygonMM
	if len(p) < 3 {
		return ErrTooFewPoints
	}
	for _, q := range p {
		for _, v := range q {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return ErrNotFinite
			}
		}
	}
	minX, minY, maxX, maxY := t.Bounds()
	if maxX-minX > 1000 || maxY-minY > 1000 {
		return ErrTooLarge
	}
	n := len(p)
	for i := 0; i < n; i++ {
		a1, a2 := p[i], p[(i+1)%n]
		for j := i + 1; j < n; j++ {
			if j == i || (j+1)%n == i || j == (i+1)%n {
				continue // adjacent edges share a vertex
			}
			b1, b2 := p[j], p[(j+1)%n]
			if segmentsCross(a1, a2, b1, b2) {
				return ErrSelfIntersects
			}
		}
	}
	if t.AreaMM2() < 1e-6 {
		return ErrZeroArea
	}
	return nil
}

// AreaMM2 is the polygon's area in mm² (shoelace formula, always positive).
func (t Template) AreaMM2() float64 {
	p := t.PolygonMM
	s := 0.0
	for i := range p {
		j := (i + 1) % len(p)
		s += p[i][0]*p[j][1] - p[j][0]*p[i][1]
	}
	return math.Abs(s) / 2
}

// Bounds is the axis-aligned bounding box of the polygon in mm.
func (t Template) Bounds() (minX, minY, maxX, maxY float64) {
	minX, minY = math.Inf(1), math.Inf(1)
	maxX, maxY = math.Inf(-1), math.Inf(-1)
	for _, q := range t.PolygonMM {
		minX, maxX = math.Min(minX, q[0]), math.Max(maxX, q[0])
		minY, maxY = math.Min(minY, q[1]), math.Max(maxY, q[1])
	}
	return
}

// Placement is a rigid placement of a template: flip about the y axis first (x -> -x) when
// Flipped, then rotation by AngleDeg (counter-clockwise in a y-down frame means clockwise on
// screen), then translation by (TxMM, TyMM).
type Placement struct {
	AngleDeg float64 `json:"angle_deg"`
	Flipped  bool    `json:"flipped"`
	TxMM     float64 `json:"tx_mm"`
	TyMM     float64 `json:"ty_mm"`
}

// Apply returns the template's polygon in millimetres after the placement.
func (t Template) Apply(p Placement) [][2]float64 {
	s, c := math.Sincos(p.AngleDeg * math.Pi / 180)
	out := make([][2]float64, len(t.PolygonMM))
	for i, q := range t.PolygonMM {
		x, y := q[0], q[1]
		if p.Flipped {
			x = -x
		}
		out[i] = [2]float64{c*x - s*y + p.TxMM, s*x + c*y + p.TyMM}
	}
	return out
}

func segmentsCross(a, b, c, d [2]float64) bool {
	orient := func(p, q, r [2]float64) float64 {
		return (q[0]-p[0])*(r[1]-p[1]) - (q[1]-p[1])*(r[0]-p[0])
	}
	d1, d2 := orient(c, d, a), orient(c, d, b)
	d3, d4 := orient(a, b, c), orient(a, b, d)
	return ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0))
}
