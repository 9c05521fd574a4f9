package vision

import (
	"os"
	"time"
)

// debugDir, when set (VISION_DEBUG_DIR), receives intermediate images.
var debugDir = os.Getenv("VISION_DEBUG_DIR")

// traceT, when not nil, collects stage timings (tests and benchmarks only).
var traceT map[string]time.Duration

// traceClock, when not nil, replaces the wall clock for traceT (tests set it to the
// process's CPU time, which other processes on the machine do not inflate).
var traceClock func() time.Duration

func traceNow() time.Duration {
	if traceClock != nil {
		return traceClock()
	}
	return time.Duration(time.Now().UnixNano())
}

func tracer() func(string) {
	if traceT == nil {
		return func(string) {}
	}
	t := traceNow()
	return func(stage string) {
		if traceT != nil {
			now := traceNow()
			traceT[stage] += now - t
			t = now
		}
	}
}
