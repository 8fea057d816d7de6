package machine_test

import (
	"regexp"
	"testing"
	"time"

	"github.com/oncetable/oncetable/test/machine"
)

func TestMeasured(t *testing.T) {
	got := machine.Measured("make bench", time.Date(2026, 12, 2, 7, 13, 0, 0, time.FixedZone("CET", 3600)))
	want := regexp.MustCompile("^Measured by `make bench` on 2026-12-02 06:13 UTC on [a-z0-9]+/[a-z0-9]+, .+, [0-9]+ CPUs, go[^,]+, GOMAXPROCS [0-9]+, load average [^,]+\\.$")
	if !want.MatchString(got) {
		t.Errorf("Measured = %q, want it to match %s", got, want)
	}
}
