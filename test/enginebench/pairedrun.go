package enginebench

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"
)

// PairedRun is the paired measurement of one process as it hands it to the
// process that writes the report (-paired-out, -paired-in): every row, the
// settings it ran with, and the peers it held.
type PairedRun struct {
	Rows []Paired `json:"rows"`
	// Slice is the target length of one slice.
	Slice      time.Duration `json:"slice_ns"`
	GOMAXPROCS int           `json:"gomaxprocs"`
	GOGC       string        `json:"gogc"`
	// Peers are the peers started in the measuring process: their tables
	// were live on its heap while the slices ran.
	Peers []string `json:"peers"`
}

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

// ErrPairedRun is the error ReadPairedRun wraps for a file that does not
// hold a usable paired run.
var ErrPairedRun = errors.New("not a paired run")

// WritePairedRun writes r as indented JSON.
func WritePairedRun(w io.Writer, r PairedRun) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// ReadPairedRun reads what WritePairedRun wrote. A run without rows, a row
// of an unknown operation, or a row given twice is an ErrPairedRun.
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
	seen := map[string]bool{}
	for _, row := range r.Rows {
		switch {
		case !slices.Contains(opOrder, row.Op) || row.Op == OpStartup:
			return PairedRun{}, fmt.Errorf("%w: unknown operation %q", ErrPairedRun, row.Op)
		case seen[row.Op]:
			return PairedRun{}, fmt.Errorf("%w: %s given twice", ErrPairedRun, row.Op)
		}
		seen[row.Op] = true
	}
	return r, nil
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
