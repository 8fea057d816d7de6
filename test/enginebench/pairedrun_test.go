package enginebench

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestPairedRunRoundTrip writes runs and reads them back unchanged.
func TestPairedRunRoundTrip(t *testing.T) {
	rows := []Paired{
		{Op: OpPut, Load: "1.20 1.00 0.90", Rounds: []PairedRound{round(900, 1000), round(850, 1000), round(880, 1000)}},
		{Op: OpTx100k, Load: "2.00 1.50 1.00", Rounds: []PairedRound{{EngineFirst: true, Engine: Slice{N: 123, Wall: 201 * time.Millisecond}, Ceiling: Slice{N: 1, Wall: 1}}}},
		{Op: OpQuery}, // -paired-rounds 0
	}
	tests := []struct {
		name  string
		run   PairedRun
		alone bool
	}{
		{"own process", PairedRun{Rows: rows, Slice: 200 * time.Millisecond, GOMAXPROCS: 2, GOGC: "100 (default)",
			Peers: []string{PeerEngineInproc, PeerSDKAlone}}, true},
		{"beside every peer", PairedRun{Rows: rows[:1], Slice: time.Second, GOMAXPROCS: 1, GOGC: "off", Peers: PeerOrder}, false},
		{"one row, no peer recorded", PairedRun{Rows: rows[1:2], Slice: 50 * time.Millisecond, GOMAXPROCS: 8, GOGC: "400"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WritePairedRun(&buf, tt.run); err != nil {
				t.Fatal(err)
			}
			got, err := ReadPairedRun(&buf)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.run) {
				t.Errorf("read back %+v, want %+v", got, tt.run)
			}
			if got.Alone() != tt.alone {
				t.Errorf("Alone() = %v, want %v", got.Alone(), tt.alone)
			}
		})
	}
}

func TestReadPairedRunRejects(t *testing.T) {
	tests := []struct {
		name, json, want string
	}{
		{"not JSON", "PutItem 0.9", "invalid character"},
		{"no rows", `{"rows": [], "slice_ns": 200000000}`, "no rows"},
		{"unknown field", `{"rows": [{"op": "PutItem"}], "ratio": 0.9}`, "unknown field"},
		{"unknown operation", `{"rows": [{"op": "Scan"}]}`, `unknown operation "Scan"`},
		{"start-up is no paired row", `{"rows": [{"op": "` + OpStartup + `"}]}`, "unknown operation"},
		{"row twice", `{"rows": [{"op": "PutItem"}, {"op": "PutItem"}]}`, "PutItem given twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadPairedRun(strings.NewReader(tt.json))
			if !errors.Is(err, ErrPairedRun) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want ErrPairedRun with %q", err, tt.want)
			}
		})
	}
}

// TestAllPaired lists the rows in report order, whatever the order they
// were recorded in.
func TestAllPaired(t *testing.T) {
	var rs Results
	for _, op := range []string{OpQuery, OpPut, OpTx1k} {
		rs.PutPaired(Paired{Op: op})
	}
	var got []string
	for _, p := range rs.AllPaired() {
		got = append(got, p.Op)
	}
	if want := []string{OpPut, OpTx1k, OpQuery}; !reflect.DeepEqual(got, want) {
		t.Errorf("AllPaired ops %q, want %q", got, want)
	}
}
