package ddblocal

import (
	"net/http"
	"testing"
)

// TestAcceptedEncodingCostsNothingForIdentity: the SDKs' Accept-Encoding
// (identity) is answered without an allocation, so a large response to an
// SDK client pays nothing for compression.
func TestAcceptedEncodingCostsNothingForIdentity(t *testing.T) {
	h := http.Header{"Accept-Encoding": {"identity"}}
	if n := testing.AllocsPerRun(100, func() { _ = acceptedEncoding(h) }); n != 0 {
		t.Errorf("acceptedEncoding(identity) allocates %.0f times, want 0", n)
	}
	if got := acceptedEncoding(h); got != "" {
		t.Errorf("acceptedEncoding(identity) = %q, want none", got)
	}
}
