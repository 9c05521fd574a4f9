package vision

import (
	"os"
	"testing"
	"time"
)

func TestTimingDebug(t *testing.T) {
	if os.Getenv("VISION_DEBUG") == "" {
		t.Skip()
	}
	f := newBenchFixture(t)
	defer f.Close()
	fresh, _ := Fresh(f.fresh.photo, a4)
	defer fresh.Close()
	t0 := time.Now()
	freshFeatures(fresh)
	t.Logf("fresh features %v (%d)", time.Since(t0), len(fresh.feat.pts))
	for i := 0; i < 3; i++ {
		traceT = map[string]time.Duration{}
		t0 = time.Now()
		a, err := Register(fresh, f.after.photo)
		t.Logf("register %v %v %v", time.Since(t0), err, traceT)
		a.Close()
	}
}
