package watch

import (
	"image"
	"testing"
	"time"

	"gocv.io/x/gocv"
)

// benchAnalyze measures the per-frame cost while waiting: analysis of a w x h frame and the
// detector's decision. The frames alternate between two images so that motion is computed
// on real differences. Target: well under 33 ms (30 frames/s) at 1280x720 on 2 cores.
func benchAnalyze(b *testing.B, w, h int) {
	path, _ := writeTestVideo(b, w, h, nil)
	src, err := OpenSource(path)
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	var frames [2]gocv.Mat
	for i := range frames {
		frames[i] = gocv.NewMat()
		defer frames[i].Close()
	}
	// Frames 10 and 20: the sheet sliding in, then lying still.
	m := gocv.NewMat()
	defer m.Close()
	for i := 0; src.Read(&m); i++ {
		if i == 10 {
			m.CopyTo(&frames[0])
		}
		if i == 20 {
			m.CopyTo(&frames[1])
		}
	}
	an := NewAnalyzer(DefaultAnalyzerConfig())
	defer an.Close()
	det := NewDetector(DefaultDetectorConfig())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s, err := an.Analyze(frames[i&1])
		if err != nil {
			b.Fatal(err)
		}
		det.Update(time.Duration(i)*33*time.Millisecond, s)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "frames/s")
}

func BenchmarkAnalyze1280x720(b *testing.B)  { benchAnalyze(b, 1280, 720) }
func BenchmarkAnalyze1920x1080(b *testing.B) { benchAnalyze(b, 1920, 1080) }

// BenchmarkDecodeAndAnalyze1280x720 adds MJPG decoding (VideoCapture.Read of a file), which a
// camera delivering MJPG costs too.
func BenchmarkDecodeAndAnalyze1280x720(b *testing.B) {
	path, truth := writeTestVideo(b, 1280, 720, nil, []image.Rectangle{image.Rect(0, 0, 50, 50)})
	an := NewAnalyzer(DefaultAnalyzerConfig())
	defer an.Close()
	m := gocv.NewMat()
	defer m.Close()
	b.ResetTimer()
	n := 0
	for n < b.N {
		src, err := OpenSource(path)
		if err != nil {
			b.Fatal(err)
		}
		for n < b.N && src.Read(&m) {
			if _, err := an.Analyze(m); err != nil {
				b.Fatal(err)
			}
			n++
		}
		src.Close()
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "frames/s")
	_ = truth
}

// BenchmarkEncodePNG1280x720 is the cost of recording a settled frame losslessly.
func BenchmarkEncodePNG1280x720(b *testing.B) {
	path, _ := writeTestVideo(b, 1280, 720, nil)
	src, err := OpenSource(path)
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	m := gocv.NewMat()
	defer m.Close()
	for i := 0; i < 20 && src.Read(&m); i++ {
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := encodePNG(m); err != nil {
			b.Fatal(err)
		}
	}
}
