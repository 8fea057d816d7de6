package enginebench

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// PairedRun is the paired measurement of one process as it hands it to the
// process that writes the report (-paired-out, -paired-in): every row, the
// settings it ran with, and the peers it held.
type PairedRun struct {
	Rows []Paired `json:"rows"`
	// Durable are the rows of the engine on a data directory, when this
	// process measured them (after its in-memory rows).
	Durable []DurablePaired `json:"durable,omitempty"`
	// Regions is the two-Region row, when this process measured it.
	Regions *RegionsRow `json:"regions,omitempty"`
	// Slice is the target length of one slice.
	Slice      time.Duration `json:"slice_ns"`
	GOMAXPROCS int           `json:"gomaxprocs"`
	GOGC       string        `json:"gogc"`
	// Peers are the peers started in the measuring process: their tables
	// were live on its heap while the slices ran.
	Peers []string `json:"peers"`
	// Load is the load average when the process started.
	Load string `json:"load,omitempty"`
}

// DurablePaired is one paired row of the engine on a data directory: peer A
// (the Engine side of each round) over peer B (the Ceiling side), measured
// as MeasurePaired measures the in-memory engine.
type DurablePaired struct {
	A string `json:"a"`
	B string `json:"b"`
	Paired
}

// DurablePairs are the comparisons of the durability rows, A over B: the
// engine on disk and the durable engine as shares of the SDK client alone,
// and the durable engine over the engine on disk.
var DurablePairs = [][2]string{
	{PeerEngineDisk, PeerSDKAlone},
	{PeerEngineDurable, PeerSDKAlone},
	{PeerEngineDurable, PeerEngineDisk},
}

// DurableOps are the write rows the durability rows are measured on.
var DurableOps = []string{OpPut, OpTx1k, OpTx100k}

// Alone reports whether the measuring process held only the two peers the
// paired measurement needs.
func (r PairedRun) Alone() bool {
	for _, p := range r.Peers {
		if p != PeerEngineInproc && p != PeerSDKAlone {
			return false
		}
	}
	return true
}

// ErrPairedRun is the error ReadPairedRun and ReadPairedRuns wrap for a
// file, or a set of files, that does not hold a usable paired run.
var ErrPairedRun = errors.New("not a paired run")

// PairedRunError is the error of one file of a set of paired runs: the
// file and what was wrong with it (an ErrPairedRun, or the file system's
// error).
type PairedRunError struct {
	Path string
	Err  error
}

func (e *PairedRunError) Error() string { return e.Path + ": " + e.Err.Error() }

// Unwrap returns the file's error.
func (e *PairedRunError) Unwrap() error { return e.Err }

// WritePairedRun writes r as indented JSON.
func WritePairedRun(w io.Writer, r PairedRun) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// ReadPairedRun reads what WritePairedRun wrote. A run without rows, a row
// of an unknown operation, or a row given twice is an ErrPairedRun; so is
// a durability row of another operation or pair than DurableOps and
// DurablePairs, or one given twice.
func ReadPairedRun(rd io.Reader) (PairedRun, error) {
	dec := json.NewDecoder(rd)
	dec.DisallowUnknownFields()
	var r PairedRun
	if err := dec.Decode(&r); err != nil {
		return PairedRun{}, fmt.Errorf("%w: %w", ErrPairedRun, err)
	}
	if len(r.Rows) == 0 {
		return PairedRun{}, fmt.Errorf("%w: no rows", ErrPairedRun)
	}
	if err := checkRows(r.Rows); err != nil {
		return PairedRun{}, err
	}
	if err := checkDurable(r.Durable); err != nil {
		return PairedRun{}, err
	}
	return r, nil
}

// checkRows rejects a row of an unknown operation or one given twice.
func checkRows(rows []Paired) error {
	seen := map[string]bool{}
	for _, row := range rows {
		switch {
		case !slices.Contains(opOrder, row.Op) || row.Op == OpStartup:
			return fmt.Errorf("%w: unknown operation %q", ErrPairedRun, row.Op)
		case seen[row.Op]:
			return fmt.Errorf("%w: %s given twice", ErrPairedRun, row.Op)
		}
		seen[row.Op] = true
	}
	return nil
}

// checkDurable rejects a durability row outside DurableOps and
// DurablePairs, or one given twice.
func checkDurable(rows []DurablePaired) error {
	seen := map[[3]string]bool{}
	for _, row := range rows {
		k := [3]string{row.Op, row.A, row.B}
		switch {
		case !slices.Contains(DurableOps, row.Op):
			return fmt.Errorf("%w: durability row of unknown operation %q", ErrPairedRun, row.Op)
		case !slices.Contains(DurablePairs, [2]string{row.A, row.B}):
			return fmt.Errorf("%w: durability row %s of unknown pair %q ÷ %q", ErrPairedRun, row.Op, row.A, row.B)
		case seen[k]:
			return fmt.Errorf("%w: durability row %s, %s ÷ %s given twice", ErrPairedRun, row.Op, row.A, row.B)
		}
		seen[k] = true
	}
	return nil
}

// PairedRuns are the paired runs of several processes, one after the
// other, in the order they ran: what the report judges the engine goals
// on, so that the run-to-run spread can be told from the margin.
type PairedRuns []PairedRun

// PairedInPaths lists the files of list, the -paired-in argument: files
// separated by commas, or directories whose .json files are taken in name
// order. An empty list, a directory without .json files, or a file given
// twice is an ErrPairedRun.
func PairedInPaths(list string) ([]string, error) {
	var paths []string
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		st, err := os.Stat(name)
		if err != nil {
			return nil, &PairedRunError{Path: name, Err: err}
		}
		if !st.IsDir() {
			paths = append(paths, filepath.Clean(name))
			continue
		}
		files, err := filepath.Glob(filepath.Join(name, "*.json"))
		if err != nil {
			return nil, &PairedRunError{Path: name, Err: err}
		}
		if len(files) == 0 {
			return nil, &PairedRunError{Path: name, Err: fmt.Errorf("%w: no .json file in the directory", ErrPairedRun)}
		}
		slices.Sort(files)
		paths = append(paths, files...)
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("%w: no file given", ErrPairedRun)
	}
	for i, p := range paths {
		if slices.Contains(paths[:i], p) {
			return nil, &PairedRunError{Path: p, Err: fmt.Errorf("%w: file given twice", ErrPairedRun)}
		}
	}
	return paths, nil
}

// ReadPairedRuns reads every run of list (see PairedInPaths), each with
// ReadPairedRun. Runs whose slice length, GOMAXPROCS or GOGC differ from
// the first run's are an ErrPairedRun: their spread would be the
// settings'. Errors of one file are a *PairedRunError naming it.
func ReadPairedRuns(list string) (PairedRuns, error) {
	paths, err := PairedInPaths(list)
	if err != nil {
		return nil, err
	}
	var runs PairedRuns
	for _, path := range paths {
		run, err := readPairedFile(path)
		if err != nil {
			return nil, &PairedRunError{Path: path, Err: err}
		}
		if len(runs) > 0 && !sameSettings(runs[0], run) {
			return nil, &PairedRunError{Path: path, Err: fmt.Errorf("%w: slices of %v, GOMAXPROCS %d, GOGC %s, where the first run (%s) had %v, %d, %s",
				ErrPairedRun, run.Slice, run.GOMAXPROCS, run.GOGC, paths[0], runs[0].Slice, runs[0].GOMAXPROCS, runs[0].GOGC)}
		}
		runs = append(runs, run)
	}
	return runs, nil
}

func readPairedFile(path string) (PairedRun, error) {
	f, err := os.Open(path)
	if err != nil {
		return PairedRun{}, err
	}
	defer f.Close()
	return ReadPairedRun(f)
}

func sameSettings(a, b PairedRun) bool {
	return a.Slice == b.Slice && a.GOMAXPROCS == b.GOMAXPROCS && a.GOGC == b.GOGC
}

// Alone reports whether every run held only the two peers the paired
// measurement needs.
func (rs PairedRuns) Alone() bool {
	for _, r := range rs {
		if !r.Alone() {
			return false
		}
	}
	return true
}

// Row returns the row of op of each run that measured it (with at least
// one round), in run order.
func (rs PairedRuns) Row(op string) []Paired {
	var out []Paired
	for _, r := range rs {
		for _, row := range r.Rows {
			if row.Op == op && len(row.Rounds) > 0 {
				out = append(out, row)
			}
		}
	}
	return out
}

// Spread summarizes op's run medians: the row's median and its run-to-run
// spread.
func (rs PairedRuns) Spread(op string) RunSpread { return spreadOf(rs.Row(op)) }

// Durable returns the durability row of op, a over b, of each run that
// measured it (with at least one round), in run order, with the runs'
// numbers (from 1).
func (rs PairedRuns) Durable(op, a, b string) (rows []Paired, runs []int) {
	for i, r := range rs {
		for _, d := range r.Durable {
			if d.Op == op && d.A == a && d.B == b && len(d.Rounds) > 0 {
				rows = append(rows, d.Paired)
				runs = append(runs, i+1)
			}
		}
	}
	return rows, runs
}

// DurableRuns are the numbers (from 1) of the runs that measured any
// durability row.
func (rs PairedRuns) DurableRuns() []int {
	var out []int
	for i, r := range rs {
		if len(r.Durable) > 0 {
			out = append(out, i+1)
		}
	}
	return out
}

// AllPaired returns every paired measurement recorded, in report order.
func (rs *Results) AllPaired() []Paired {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	var out []Paired
	for _, op := range opOrder {
		if p, ok := rs.paired[op]; ok {
			out = append(out, p)
		}
	}
	return out
}

// PutDurable records the durability row d, replacing an earlier one of
// the same operation and pair.
func (rs *Results) PutDurable(d DurablePaired) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.durable == nil {
		rs.durable = map[[3]string]DurablePaired{}
	}
	rs.durable[[3]string{d.Op, d.A, d.B}] = d
}

// AllDurable returns every durability row recorded, by operation
// (DurableOps) and pair (DurablePairs).
func (rs *Results) AllDurable() []DurablePaired {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	var out []DurablePaired
	for _, op := range DurableOps {
		for _, pair := range DurablePairs {
			if d, ok := rs.durable[[3]string{op, pair[0], pair[1]}]; ok {
				out = append(out, d)
			}
		}
	}
	return out
}

// SetPairedRuns sets the paired runs the report shows and judges the
// engine goals on.
func (rs *Results) SetPairedRuns(runs PairedRuns) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.runs = runs
}

// PairedRuns returns the runs SetPairedRuns set.
func (rs *Results) PairedRuns() PairedRuns {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.runs
}
