package main

import (
	"bytes"
	"os"
	"testing"
)

// TestGeneratedUpToDate regenerates each package in memory and compares it
// with the checked-in file: run `go generate ./runtime/ddblocal/wire` when
// it fails.
func TestGeneratedUpToDate(t *testing.T) {
	for _, tc := range []struct{ model, pkg, out string }{
		{"../../model/dynamodb-2012-08-10.json.gz", "ddb", "../../ddb/model_gen.go"},
		{"../../model/dynamodbstreams-2012-08-10.json.gz", "streams", "../../streams/model_gen.go"},
	} {
		t.Run(tc.pkg, func(t *testing.T) {
			want, err := generate(tc.model, tc.pkg)
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(tc.out)
			if err != nil {
				t.Fatal(err)
			}
			// The header names the model by its base name only, so the
			// relative path of this test does not matter.
			if !bytes.Equal(got, want) {
				t.Errorf("%s is not what wiregen writes from %s (%d bytes, want %d): run go generate ./runtime/ddblocal/wire", tc.out, tc.model, len(got), len(want))
			}
		})
	}
}

func TestConstName(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"ALL_NEW", "AllNew"},
		{"PAY_PER_REQUEST", "PayPerRequest"},
		{"2019.11.21", "V20191121"},
		{"S", "S"},
		{"RequestLimitExceeded", "RequestLimitExceeded"},
		{"arn:aws:dynamodb", "ArnAwsDynamodb"},
	} {
		if got := constName(tc.in); got != tc.want {
			t.Errorf("constName(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
