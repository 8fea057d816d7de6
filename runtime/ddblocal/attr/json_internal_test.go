package attr

import (
	"errors"
	"testing"
)

func TestUnmarshalScalarFastPathMatchesGeneralPath(t *testing.T) {
	for _, in := range []string{`{"S":"plain"}`, `{"S":"esc\"aped"}`, `{"S":"tab\tx"}`, `{"S":"é"}`, `{"S":""}`,
		`{"N":"1.50"}`, `{"N":"x"}`, `{"N":"1E+200"}`, `{"N":"123456789012345678901234567890123456789"}`,
		` { "S" : "spaced" } `, `{"S":"a","N":"1"}`, `{"SS":["a"]}`, `{"S":1}`, `{"S":"\u00e9"}`} {
		t.Run(in, func(t *testing.T) {
			var fast, general Value
			fastErr := fast.UnmarshalJSON([]byte(in))
			generalErr := general.unmarshalWire([]byte(in))
			var fv, gv *ValidationError
			if (fastErr == nil) != (generalErr == nil) || errors.As(fastErr, &fv) != errors.As(generalErr, &gv) {
				t.Fatalf("errors differ: fast %v, general %v", fastErr, generalErr)
			}
			if fv != nil && fv.Message != gv.Message {
				t.Fatalf("messages differ:\n fast: %s\n general: %s", fv.Message, gv.Message)
			}
			if fastErr == nil && !Equal(fast, general) {
				t.Fatalf("values differ: fast %+v, general %+v", fast, general)
			}
		})
	}
}
