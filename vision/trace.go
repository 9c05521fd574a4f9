package vision

import "time"

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
