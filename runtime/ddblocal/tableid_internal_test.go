package ddblocal

import (
	"fmt"
	"testing"
	"time"
)

func TestTableIDFormat(t *testing.T) {
	for _, name := range []string{"", "bench", "Orders-2026"} {
		for _, at := range []time.Time{time.Unix(0, 0).UTC(), time.Date(2026, 11, 29, 22, 0, 0, 123, time.UTC), time.Now()} {
			h := uint64(14695981039346656037)
			for _, c := range []byte(name + at.String()) {
				h = (h ^ uint64(c)) * 1099511628211
			}
			want := fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", uint32(h>>32), uint16(h>>16), uint16(h), uint16(h>>48), h&0xFFFFFFFFFFFF)
			if got := tableID(name, at); got != want {
				t.Errorf("tableID(%q, %v) = %s, want %s", name, at, got, want)
			}
		}
	}
}
