package vision

import (
	"os"
	"time"
)

// debugDir, when set (VISION_DEBUG_DIR), receives intermediate images.
var debugDir = os.Getenv("VISION_DEBUG_DIR")

// traceT, when not nil, collects stage timings (tests and benchmarks only).
var traceT map[string]time.Duration

func tracer() func(string) {
	t := time.Now()
	return func(stage string) {
		if traceT != nil {
			traceT[stage] += time.Since(t)
		}
		t = time.Now()
	}
}
