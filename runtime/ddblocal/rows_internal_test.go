package ddblocal

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
)

// rowsModel is what a rows must hold: value by key.
type rowsModel map[string]string

// rowEntry is the entry of key holding val.
func rowEntry(key, val string) entry {
	return joinEntry([]byte(key), []byte(val), uint32(len(val)))
}

// checkRows fails t unless r holds exactly m, in key order.
func checkRows(t *testing.T, what string, r *rows, m rowsModel) {
	t.Helper()
	if r.Len() != len(m) {
		t.Fatalf("%s: Len %d, want %d", what, r.Len(), len(m))
	}
	var got []string
	r.Ascend(func(en entry) bool {
		got = append(got, string(en.key()))
		if want := m[string(en.key())]; string(en.val()) != want {
			t.Fatalf("%s: %q holds %q, want %q", what, en.key(), en.val(), want)
		}
		return true
	})
	if want := slices.Sorted(maps.Keys(m)); !slices.Equal(got, want) {
		t.Fatalf("%s: keys %q, want %q", what, got, want)
	}
	for k, v := range m {
		en, ok := r.Get(probe([]byte(k)))
		if !ok || string(en.val()) != v {
			t.Fatalf("%s: Get(%q) = %q, %v; want %q", what, k, en.val(), ok, v)
		}
	}
	if _, ok := r.Get(probe([]byte("absent"))); ok {
		t.Fatalf("%s: Get of an absent key found a row", what)
	}
}

// TestRowsMatchAModel runs random writes, deletes and clones on a table's
// rows and checks after each step that the live rows hold what a map
// does, and that every clone still holds what the table held when it was
// taken, however the table (updated in place) or the clone (restored to
// a live table of its own, as restores do) changed since. The hashes run
// with the engine's hash and with hashes that make most keys collide.
func TestRowsMatchAModel(t *testing.T) {
	hashes := map[string]func([]byte) uint64{
		"maphash":      rowHash,
		"three values": func(k []byte) uint64 { return uint64(len(k) % 3) },
		"one value":    func([]byte) uint64 { return 7 },
	}
	for name, hash := range hashes {
		t.Run(name, func(t *testing.T) {
			rnd := rand.New(rand.NewPCG(1, 2))
			live := newRows()
			live.hash = hash
			model := rowsModel{}
			type frozen struct {
				r *rows
				m rowsModel
			}
			var clones []frozen
			for step := range 2000 {
				key := fmt.Sprintf("k%0*d", 1+rnd.IntN(3), rnd.IntN(60))
				switch op := rnd.IntN(20); {
				case op < 12:
					val := fmt.Sprintf("v%d", step)
					prev, had := live.ReplaceOrInsert(rowEntry(key, val))
					old, want := model[key]
					if had != want || (had && string(prev.val()) != old) {
						t.Fatalf("step %d: ReplaceOrInsert(%q) replaced %q, %v; want %q, %v", step, key, prev.val(), had, old, want)
					}
					model[key] = val
				case op < 17:
					prev, had := live.Delete(probe([]byte(key)))
					old, want := model[key]
					if had != want || (had && string(prev.val()) != old) {
						t.Fatalf("step %d: Delete(%q) = %q, %v; want %q, %v", step, key, prev.val(), had, old, want)
					}
					delete(model, key)
				case op < 19:
					clones = append(clones, frozen{live.Clone(), maps.Clone(model)})
					if len(clones) > 6 {
						clones = clones[1:]
					}
				case len(clones) > 0:
					// A restore: the clone becomes a live table and is
					// written to, which neither the source nor the other
					// clones may see.
					c := clones[rnd.IntN(len(clones))]
					restored := c.r.Clone().live()
					restored.ReplaceOrInsert(rowEntry(key, "restored"))
					restored.Delete(probe([]byte("k1")))
					m := maps.Clone(c.m)
					m[key] = "restored"
					delete(m, "k1")
					checkRows(t, fmt.Sprintf("step %d, restored", step), restored, m)
				}
				checkRows(t, fmt.Sprintf("step %d, live", step), live, model)
				for i, c := range clones {
					checkRows(t, fmt.Sprintf("step %d, clone %d", step, i), c.r, c.m)
				}
			}
		})
	}
}

// TestRowsUpdateInPlace checks that an update of a row no clone shares
// keeps its cell (no tree search), and that one a clone shares gets a
// new cell.
func TestRowsUpdateInPlace(t *testing.T) {
	r := newRows()
	r.ReplaceOrInsert(rowEntry("a", "1"))
	before, _ := r.find([]byte("a"))
	r.ReplaceOrInsert(rowEntry("a", "2"))
	if after, _ := r.find([]byte("a")); after != before {
		t.Fatal("an update of an unshared row replaced its cell")
	}
	snap := r.Clone()
	r.ReplaceOrInsert(rowEntry("a", "3"))
	if after, _ := r.find([]byte("a")); after == before {
		t.Fatal("an update of a row a clone shares wrote into the shared cell")
	}
	if en, _ := snap.Get(probe([]byte("a"))); string(en.val()) != "2" {
		t.Fatalf("the clone holds %q, want %q", en.val(), "2")
	}
}

// TestRowsRehome checks that a live table whose stale cells (left after a
// clone) reach half as many as its rows moves its rows to cells of its own, and that
// the clone and the table still hold what they held.
func TestRowsRehome(t *testing.T) {
	cases := []struct {
		name string
		rows int
		// write makes row i stale: an update or a delete.
		write func(r *rows, m rowsModel, key string)
	}{
		{"updates", 3 * slabCells, func(r *rows, m rowsModel, key string) {
			r.ReplaceOrInsert(rowEntry(key, "new"))
			m[key] = "new"
		}},
		{"deletes", 3 * slabCells, func(r *rows, m rowsModel, key string) {
			r.Delete(probe([]byte(key)))
			delete(m, key)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			live, model := newRows(), rowsModel{}
			for i := range c.rows {
				key := fmt.Sprintf("k%04d", i)
				live.ReplaceOrInsert(rowEntry(key, "old"))
				model[key] = "old"
			}
			snap, frozen := live.Clone(), maps.Clone(model)
			rehomed := false
			for i := range c.rows {
				c.write(live, model, fmt.Sprintf("k%04d", i))
				if live.stale == 0 {
					rehomed = true
					live.tree.Ascend(func(s slot) bool {
						if s.c.gen != live.gen {
							t.Fatalf("after the move, %q is in a cell of generation %d, not the table's %d", s.c.en.key(), s.c.gen, live.gen)
						}
						if c, _ := live.find(s.c.en.key()); c != s.c {
							t.Fatalf("after the move, the hash index and the tree disagree on %q", s.c.en.key())
						}
						return true
					})
				}
				checkRows(t, fmt.Sprintf("write %d, live", i), live, model)
				checkRows(t, fmt.Sprintf("write %d, clone", i), snap, frozen)
			}
			if !rehomed {
				t.Fatalf("%d stale cells among %d rows: the rows never moved", c.rows, live.Len())
			}
		})
	}
}
