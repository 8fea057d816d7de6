package enginebench

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
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

// TestReadPairedRunDurable reads the durability rows back, and rejects
// those of another operation or pair, or given twice.
func TestReadPairedRunDurable(t *testing.T) {
	d := func(op, a, b string) string {
		return `{"op": "` + op + `", "a": "` + a + `", "b": "` + b + `", "rounds": [{"engine": {"n": 10, "wall_ns": 1000}, "ceiling": {"n": 20, "wall_ns": 1000}}]}`
	}
	run := func(durable ...string) string {
		return `{"rows": [{"op": "PutItem"}], "durable": [` + strings.Join(durable, ", ") + `]}`
	}
	tests := []struct {
		name, json, wantErr string
	}{
		{"every pair of every write row", run(d(OpPut, PeerEngineDisk, PeerSDKAlone), d(OpPut, PeerEngineDurable, PeerSDKAlone),
			d(OpPut, PeerEngineDurable, PeerEngineDisk), d(OpTx100k, PeerEngineDisk, PeerSDKAlone)), ""},
		{"none", run(), ""},
		{"not a write row", run(d(OpQuery, PeerEngineDisk, PeerSDKAlone)), `durability row of unknown operation "Query returning 100 items"`},
		{"unknown pair", run(d(OpPut, PeerSDKAlone, PeerEngineDisk)), "of unknown pair"},
		{"twice", run(d(OpTx1k, PeerEngineDurable, PeerSDKAlone), d(OpTx1k, PeerEngineDurable, PeerSDKAlone)), "given twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := ReadPairedRun(strings.NewReader(tt.json))
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				runs := PairedRuns{r}
				if rows, nums := runs.Durable(OpPut, PeerEngineDisk, PeerSDKAlone); len(r.Durable) > 0 && (len(rows) != 1 || rows[0].Median() != 0.5 || nums[0] != 1) {
					t.Errorf("Durable(PutItem, disk ÷ SDK alone) = %v in runs %v, want one row of median 0.5 in run 1", rows, nums)
				}
				return
			}
			if !errors.Is(err, ErrPairedRun) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("err = %v, want ErrPairedRun with %q", err, tt.wantErr)
			}
		})
	}
}

// TestReadPairedRuns reads several runs from a comma-separated list or a
// directory, in order, and rejects a set that is not one.
func TestReadPairedRuns(t *testing.T) {
	dir := t.TempDir()
	put := `{"op": "PutItem", "rounds": [{"engine": {"n": 9, "wall_ns": 1000}, "ceiling": {"n": 10, "wall_ns": 1000}}]}`
	files := map[string]string{
		"runs/run-01.json": `{"rows": [` + put + `], "slice_ns": 200000000, "gomaxprocs": 2, "gogc": "100", "load": "1.00 1.00 1.00"}`,
		"runs/run-02.json": `{"rows": [` + put + `], "slice_ns": 200000000, "gomaxprocs": 2, "gogc": "100", "load": "2.00 1.00 1.00"}`,
		"runs/notes.txt":   "not a run",
		"twice.json":       `{"rows": [` + put + `, ` + put + `], "slice_ns": 200000000, "gomaxprocs": 2, "gogc": "100"}`,
		"unknown.json":     `{"rows": [{"op": "Scan"}], "slice_ns": 200000000, "gomaxprocs": 2, "gogc": "100"}`,
		"other-slice.json": `{"rows": [` + put + `], "slice_ns": 50000000, "gomaxprocs": 2, "gogc": "100"}`,
		"empty/.keep":      "",
	}
	for name, body := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	in := func(names ...string) string {
		for i, n := range names {
			names[i] = filepath.Join(dir, n)
		}
		return strings.Join(names, ",")
	}
	tests := []struct {
		name, list string
		loads      []string // the runs read, by their load
		wantErr    string   // with the *PairedRunError's file, when one
		wantPath   string
	}{
		{"one file", in("runs/run-02.json"), []string{"2.00 1.00 1.00"}, "", ""},
		{"comma-separated, in the order given", in("runs/run-02.json", "runs/run-01.json"), []string{"2.00 1.00 1.00", "1.00 1.00 1.00"}, "", ""},
		{"a directory, its .json files in name order", in("runs"), []string{"1.00 1.00 1.00", "2.00 1.00 1.00"}, "", ""},
		{"empty list", " , ", nil, "no file given", ""},
		{"a row given twice in one run", in("runs/run-01.json", "twice.json"), nil, "PutItem given twice", "twice.json"},
		{"unknown operation", in("unknown.json"), nil, `unknown operation "Scan"`, "unknown.json"},
		{"other settings than the first run", in("runs/run-01.json", "other-slice.json"), nil, "slices of 50ms", "other-slice.json"},
		{"a file given twice", in("runs/run-01.json", "runs"), nil, "file given twice", "runs/run-01.json"},
		{"a directory without runs", in("empty"), nil, "no .json file", "empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runs, err := ReadPairedRuns(tt.list)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				var loads []string
				for _, r := range runs {
					loads = append(loads, r.Load)
				}
				if !reflect.DeepEqual(loads, tt.loads) {
					t.Errorf("runs with loads %q, want %q", loads, tt.loads)
				}
				return
			}
			if !errors.Is(err, ErrPairedRun) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want ErrPairedRun with %q", err, tt.wantErr)
			}
			var fileErr *PairedRunError
			switch {
			case tt.wantPath == "" && errors.As(err, &fileErr):
				t.Errorf("err = %v names a file, want none", err)
			case tt.wantPath != "" && (!errors.As(err, &fileErr) || fileErr.Path != filepath.Join(dir, tt.wantPath)):
				t.Errorf("err = %v, want a *PairedRunError of %s", err, tt.wantPath)
			}
		})
	}
	_, err := ReadPairedRuns(in("missing.json"))
	var fileErr *PairedRunError
	if !errors.Is(err, os.ErrNotExist) || !errors.As(err, &fileErr) {
		t.Errorf("missing file: err = %v, want a *PairedRunError wrapping os.ErrNotExist", err)
	}
}

// TestRegionsRowRoundTrip: the two-Region row of a run survives
// -paired-out and -paired-in, and the report renders it.
func TestRegionsRowRoundTrip(t *testing.T) {
	row := RegionsRow{Paired: pairedRow(OpPut, "1.00 1.00 1.00", 600, 640), Replication: Replication{Items: 5_000, PerSecond: 9_938, HeapPerItem: [2]float64{541, 1507}}}
	in := PairedRun{Rows: []Paired{pairedRow(OpPut, "1.00", 900)}, Regions: &row, Slice: time.Second, GOMAXPROCS: 2, GOGC: "100"}
	var buf bytes.Buffer
	if err := WritePairedRun(&buf, in); err != nil {
		t.Fatal(err)
	}
	out, err := ReadPairedRun(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if out.Regions == nil || out.Regions.Replication != row.Replication || len(out.Regions.Rounds) != 2 {
		t.Fatalf("regions row after the round trip: %+v, want %+v", out.Regions, row)
	}
	got := regionsSection(PairedRuns{out})
	for _, want := range []string{"| 1 | 0.620× | 0.610–0.630 | 2 | 1.00 1.00 1.00 | 5,000 | 9,938 | 541 B | 1,507 B |", PeerEngineRegions, PeerEngineStream} {
		if !strings.Contains(got, want) {
			t.Errorf("section lacks %q:\n%s", want, got)
		}
	}
	if got := regionsSection(PairedRuns{{Rows: in.Rows}}); !strings.Contains(got, "No run measured the two-Region row") {
		t.Errorf("section without a row:\n%s", got)
	}
}
