package referee

import "tearcam/judge"

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
