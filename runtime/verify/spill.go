package verify

import (
	"bufio"
	"encoding/gob"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"
)

// spill holds the facts of a scan in bucket files, by a hash of their
// group, so that a group is always whole in one bucket.
type spill struct {
	dir     string
	seed    maphash.Seed
	buckets []*bucket
}

type bucket struct {
	mu   sync.Mutex
	file *os.File
	buf  *bufio.Writer
	enc  *gob.Encoder
	n    int
}

func newSpill(parent string, n int) (*spill, error) {
	dir, err := os.MkdirTemp(parent, "oncetable-verify-")
	if err != nil {
		return nil, fmt.Errorf("verify: spill directory: %w", err)
	}
	s := &spill{dir: dir, seed: maphash.MakeSeed(), buckets: make([]*bucket, n)}
	for i := range s.buckets {
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("bucket-%04d.gob", i)))
		if err != nil {
			s.close()
			return nil, fmt.Errorf("verify: spill: %w", err)
		}
		b := &bucket{file: f, buf: bufio.NewWriterSize(f, 64<<10)}
		b.enc = gob.NewEncoder(b.buf)
		s.buckets[i] = b
	}
	return s, nil
}

// add writes facts to their buckets.
func (s *spill) add(facts []fact) error {
	for _, f := range facts {
		b := s.buckets[maphash.String(s.seed, f.groupKey())%uint64(len(s.buckets))]
		b.mu.Lock()
		err := b.enc.Encode(&f)
		b.n++
		b.mu.Unlock()
		if err != nil {
			return fmt.Errorf("verify: spill: %w", err)
		}
	}
	return nil
}

// each calls fn with the groups of every bucket, one bucket in memory at a
// time, groups in a fixed order.
func (s *spill) each(fn func(kind byte, g *group)) error {
	for _, b := range s.buckets {
		if err := b.buf.Flush(); err != nil {
			return fmt.Errorf("verify: spill: %w", err)
		}
		if _, err := b.file.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("verify: spill: %w", err)
		}
		groups := map[string]*group{}
		dec := gob.NewDecoder(bufio.NewReaderSize(b.file, 64<<10))
		for range b.n {
			var f fact
			if err := dec.Decode(&f); err != nil {
				if errors.Is(err, io.EOF) {
					err = io.ErrUnexpectedEOF
				}
				return fmt.Errorf("verify: read spill: %w", err)
			}
			k := f.groupKey()
			g := groups[k]
			if g == nil {
				g = &group{id: f.ID}
				groups[k] = g
			}
			g.facts = append(g.facts, f)
		}
		names := make([]string, 0, len(groups))
		for k := range groups {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			g := groups[k]
			sort.Slice(g.facts, func(i, j int) bool {
				a, b := g.facts[i], g.facts[j]
				if a.Kind != b.Kind {
					return a.Kind < b.Kind
				}
				if a.Key.PK != b.Key.PK {
					return a.Key.PK < b.Key.PK
				}
				return a.Key.SK < b.Key.SK
			})
			fn(k[0], g)
		}
	}
	return nil
}

func (s *spill) close() error {
	for _, b := range s.buckets {
		if b != nil {
			b.file.Close()
		}
	}
	return os.RemoveAll(s.dir)
}
