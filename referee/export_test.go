package referee

import (
	"gocv.io/x/gocv"

	"tearcam/judge"
)

// MeasurementFields is measurementFields, for referee_test.
const MeasurementFields = measurementFields

// RoundTripMeasurement encodes and decodes m as the database keeps it.
func RoundTripMeasurement(m judge.Measurement) (judge.Measurement, error) {
	b, err := encodeMeasurement(m, "")
	if err != nil {
		return judge.Measurement{}, err
	}
	m, _, err = decodeMeasurement(b)
	return m, err
}

// RetakeHint exports retakeHint for tests.
func RetakeHint(err error) string { return retakeHint(err) }

// FreshToFrame maps photo pixels to the sheet frame (mm) of the rectified sheet s (a CV
// sheet), for tests that put the generator's truth where the layouts are.
func FreshToFrame(s Sheet) (func(x, y float64) judge.Point, error) {
	f, err := sheetOf(s)
	if err != nil {
		return nil, err
	}
	w, h := float32(float64(f.Image.Cols())/f.PxPerMM), float32(float64(f.Image.Rows())/f.PxPerMM)
	from := gocv.NewPoint2fVectorFromPoints(f.Corners[:])
	defer from.Close()
	to := gocv.NewPoint2fVectorFromPoints([]gocv.Point2f{{X: 0, Y: 0}, {X: w, Y: 0}, {X: w, Y: h}, {X: 0, Y: h}})
	defer to.Close()
	hm := gocv.GetPerspectiveTransform2f(from, to)
	defer hm.Close()
	var g [9]float64
	for i := range g {
		g[i] = hm.GetDoubleAt(i/3, i%3)
	}
	return func(x, y float64) judge.Point {
		d := g[6]*x + g[7]*y + g[8]
		return judge.Point{X: (g[0]*x + g[1]*y + g[2]) / d, Y: (g[3]*x + g[4]*y + g[5]) / d}
	}, nil
}
