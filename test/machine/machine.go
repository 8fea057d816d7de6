package machine

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"
)

// Measured is the line a report opens its figures with:
//
//	Measured by `make bench` on 2026-12-02 07:13 UTC on linux/amd64, Intel(R) Xeon(R) Processor, 2 CPUs, go1.26.8, GOMAXPROCS 2, load average 1.44 1.26 1.28.
func Measured(command string, when time.Time) string {
	return fmt.Sprintf("Measured by `%s` on %s on %s.", command, when.UTC().Format("2006-01-02 15:04 UTC"), Describe())
}

// Describe names the platform, processor, CPU count, Go version,
// GOMAXPROCS and the load average now.
func Describe() string {
	return fmt.Sprintf("%s/%s, %s, %d CPUs, %s, GOMAXPROCS %d, load average %s",
		runtime.GOOS, runtime.GOARCH, CPU(), runtime.NumCPU(), runtime.Version(), runtime.GOMAXPROCS(0), Load())
}

// CPU is the processor's model name, or the architecture where the
// system does not say.
func CPU() string {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}

// Load is the 1, 5 and 15 minute load averages, or "unknown".
func Load() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
