package paymentsapi

import (
	"os"
	"os/exec"
	"testing"

	"github.com/oncetable/oncetable/constructs/gofunction"
)

// maxBootstrapBytes bounds each bundled binary: a small bootstrap keeps cold
// starts and deployment packages small. The OpenTelemetry SDK with its
// console exporter and X-Ray ids (runtime/tracing) adds about 1.8 MiB; its
// OTLP exporter (gRPC, about 4 MB more) stays out of the bundles (-tags otlp).
const maxBootstrapBytes = 11 << 20

// TestBootstrapSizes builds every function exactly as synthesis bundles it
// and checks the size of its bootstrap.
func TestBootstrapSizes(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go not on PATH")
	}
	root, err := gofunction.ModuleRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, fn := range append(Functions(), RotationFunctionName) {
		t.Run(fn, func(t *testing.T) {
			path, err := gofunction.Build(root, "./lambdas/"+fn, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			st, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s bootstrap: %d bytes (%.1f MiB)", fn, st.Size(), float64(st.Size())/(1<<20))
			if st.Size() >= maxBootstrapBytes {
				t.Errorf("%s bootstrap is %d bytes, want < %d", fn, st.Size(), maxBootstrapBytes)
			}
		})
	}
}
