package vision

import (
	"syscall"
	"testing"
	"time"

	"gocv.io/x/gocv"

	"tearcam/template"
)

// benchFixture is a fresh photo and a torn after-photo (1600x1200) of the same sheet.
type benchFixture struct {
	fresh, after shot
	bg1, bg2     gocv.Mat
	sheet        gocv.Mat
}

// newBenchFixture photographs the sheet on a wood table.
func newBenchFixture(b testing.TB) *benchFixture { return newBenchFixtureOn(b, "wood") }

// newBenchFixtureOn photographs the sheet on a table of the given kind (fixture_test.go's
// background): "light" is the pale table, where edgeRefine runs (edgemask.go).
func newBenchFixtureOn(b testing.TB, kind string) *benchFixture {
	f := &benchFixture{}
	f.sheet = renderSheet(b, a4, 2)
	f.bg1 = background(b, kind, 1600, 1200, 3)
	f.bg2 = background(b, kind, 1600, 1200, 4)
	f.fresh = photograph(b, f.sheet, a4, nil, f.bg1, pt{800, 600}, 0, 3.6, 0)
	remaining := []pt{{0, 0}, {210, 0}, {210, 100}, {150, 120}, {140, 170}, {210, 190}, {210, 297}, {0, 297}}
	f.after = photograph(b, f.sheet, a4, [][]pt{remaining}, f.bg2, pt{820, 590}, 172, 3.3, 0.12)
	return f
}

func (f *benchFixture) Close() {
	f.fresh.photo.Close()
	f.after.photo.Close()
	f.bg1.Close()
	f.bg2.Close()
	f.sheet.Close()
}

// BenchmarkFresh: locate + rectify the untorn sheet in a 1600x1200 photo.
func BenchmarkFresh(b *testing.B) {
	f := newBenchFixture(b)
	defer f.Close()
	b.ResetTimer()
	c0 := cpuTime()
	defer reportCPU(b, c0)
	for i := 0; i < b.N; i++ {
		s, err := Fresh(f.fresh.photo, a4)
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}

// BenchmarkRegister: register a torn, turned 1600x1200 after-photo (fresh features cached,
// as in a session where the fresh sheet is registered against many times).
func BenchmarkRegister(b *testing.B) { benchRegister(b, "wood") }

// BenchmarkRegisterLight: the same on a light grey table (the pale desk's case, where the
// paper mask is re-decided by the photo's brightness steps: edgeRefine).
func BenchmarkRegisterLight(b *testing.B) { benchRegister(b, "light") }

func benchRegister(b *testing.B, kind string) {
	f := newBenchFixtureOn(b, kind)
	defer f.Close()
	fresh, err := Fresh(f.fresh.photo, a4)
	if err != nil {
		b.Fatal(err)
	}
	defer fresh.Close()
	b.ResetTimer()
	c0 := cpuTime()
	defer reportCPU(b, c0)
	for i := 0; i < b.N; i++ {
		s, err := Register(fresh, f.after.photo)
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}

// BenchmarkMeasure: tear geometry + template fit (piece and remaining paper) + letters.
func BenchmarkMeasure(b *testing.B) { benchMeasure(b, "wood") }

// BenchmarkMeasureLight: the same on a light grey table.
func BenchmarkMeasureLight(b *testing.B) { benchMeasure(b, "light") }

func benchMeasure(b *testing.B, kind string) {
	f := newBenchFixtureOn(b, kind)
	defer f.Close()
	fresh, err := Fresh(f.fresh.photo, a4)
	if err != nil {
		b.Fatal(err)
	}
	defer fresh.Close()
	after, err := Register(fresh, f.after.photo)
	if err != nil {
		b.Fatal(err)
	}
	defer after.Close()
	b.ResetTimer()
	c0 := cpuTime()
	defer reportCPU(b, c0)
	for i := 0; i < b.N; i++ {
		r, err := Measure(fresh, after, nil, template.Default())
		if err != nil {
			b.Fatal(err)
		}
		r.Close()
	}
}

// BenchmarkPipeline: everything for one tear from two photos: Fresh (locate + rectify),
// Register (first time, so the fresh sheet's features are computed too) and Measure.
func BenchmarkPipeline(b *testing.B) {
	f := newBenchFixture(b)
	defer f.Close()
	b.ResetTimer()
	c0 := cpuTime()
	defer reportCPU(b, c0)
	for i := 0; i < b.N; i++ {
		fresh, err := Fresh(f.fresh.photo, a4)
		if err != nil {
			b.Fatal(err)
		}
		after, err := Register(fresh, f.after.photo)
		if err != nil {
			b.Fatal(err)
		}
		r, err := Measure(fresh, after, nil, template.Default())
		if err != nil {
			b.Fatal(err)
		}
		r.Close()
		after.Close()
		fresh.Close()
	}
}

// cpuTime is this process's user+system CPU time (all threads, OpenCV's included).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU adds cpu-ms/op: CPU time per operation, which, unlike ns/op, does not grow when
// other processes share the two cores.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N)/1e6, "cpu-ms/op")
}
