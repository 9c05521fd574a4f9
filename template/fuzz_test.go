package template

import (
	"testing"
)

// FuzzParse checks that the template loader never panics and that whatever it accepts is a
// valid template: `go test -fuzz FuzzParse ./template/`.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"name":"default","polygon_mm":[[0,0],[38.1,0],[38.1,25.4],[0,25.4]]}`))
	f.Add([]byte(`{"polygon_mm":[[0,0],[10,10],[10,0],[0,10]]}`))
	f.Add([]byte(`{"polygon_mm":[[0,0],[1e308,0],[0,1e308]]}`))
	f.Add([]byte(`{"polygon_mm":null}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tp, err := Parse(data)
		if err != nil {
			return
		}
		if verr := tp.Validate(); verr != nil {
			t.Fatalf("Parse accepted an invalid template: %v", verr)
		}
		if tp.AreaMM2() <= 0 {
			t.Fatalf("accepted template has area %v", tp.AreaMM2())
		}
	})
}
