package ddblocal

import (
	"fmt"
	"hash/crc32"
	"strconv"
	"testing"
)

func TestRequestIDFormat(t *testing.T) {
	e := &Engine{}
	for _, start := range []uint64{0, 9, 0xFFFF, 1<<63 - 1, ^uint64(0) - 1} {
		e.reqSeq = start
		n := start + 1
		want := fmt.Sprintf("DDBLOCAL%016X%08X", n, crc32.ChecksumIEEE([]byte(strconv.FormatUint(n, 10))))
		if got := e.requestID(); got != want {
			t.Errorf("requestID after %d = %q, want %q", start, got, want)
		}
	}
}
