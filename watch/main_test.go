package watch

import (
	"fmt"
	"os"
	"testing"

	"gocv.io/x/gocv"
)

// TestMain fails the run when a test leaves a Mat open (build with -tags matprofile).
func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 && gocv.MatProfile.Count() > 0 {
		var b = new(stringsBuilder)
		gocv.MatProfile.WriteTo(b, 1)
		fmt.Fprintf(os.Stderr, "%d Mats left open:\n%s", gocv.MatProfile.Count(), b.String())
		code = 1
	}
	os.Exit(code)
}

type stringsBuilder struct{ b []byte }

func (s *stringsBuilder) Write(p []byte) (int, error) { s.b = append(s.b, p...); return len(p), nil }
func (s *stringsBuilder) String() string              { return string(s.b) }
