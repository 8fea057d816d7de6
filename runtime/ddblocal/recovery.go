package ddblocal

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// What a crash can do to the data file, and what Open does about it.
//
// Every commit is one bbolt transaction: bbolt writes the transaction's
// pages, then the meta page that makes them current. A killed process
// (SIGKILL, a panic, OOM) leaves all of those writes with the operating
// system, which writes them out whatever became of the process: the file
// holds every acknowledged commit, in either mode, and opens as it is.
//
// A machine crash or power loss is another matter. In the default mode
// (Options.Durable false, bbolt's NoSync) the kernel may have written the
// meta page and not yet the pages it points to, so the file may lose the
// last seconds of commits or be corrupt. In the durable mode every commit
// is fsynced before it is acknowledged, and nothing acknowledged is lost.
//
// Open tells the two apart by the run file: Open writes it with the boot
// id of the machine and Close removes it. A run file left by a process of
// the same boot means a killed process: nothing to check. One left by an
// earlier boot (or where the boot id is unknown) means the machine went
// down with the engine open: Open checks every page of the file. A file
// that fails that check, or that bbolt cannot open as a database, is
// renamed aside (ddblocal.db.corrupt-<time>, kept for inspection), as is,
// after a machine crash, one whose pages check out but whose tables
// cannot be loaded; the engine then starts on an empty file, and
// Recovery says so. The engine never refuses to open a data directory
// because of a crash.
const runFile = "ddblocal.run"

// bootIDFile names the current boot on Linux.
const bootIDFile = "/proc/sys/kernel/random/boot_id"

// Recovery describes what Open did to recover the data directory from a
// crash: "" when the data opened as it was.
func (e *Engine) Recovery() string { return e.recovery }

// openDB opens the data file of dir, checking and if need be setting it
// aside after a machine crash.
func (e *Engine) openDB(dir string) (*bolt.DB, error) {
	path := filepath.Join(dir, DataFile)
	opts := &bolt.Options{Timeout: dirLockWait, NoSync: !e.opts.Durable, NoFreelistSync: true}
	db, err := openBolt(path, opts)
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, ErrDirInUse
	}
	boot := bootID()
	crashed := machineCrashed(dir, boot)
	if err == nil && crashed {
		if err = checkDB(db); err != nil {
			_ = db.Close()
		}
	}
	e.machineCrash = crashed
	if err != nil && (crashed || corrupt(err)) {
		return e.setAside(dir, err)
	}
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, runFile), []byte(boot+"\n"), 0o644); err != nil {
		_ = db.Close()
		return nil, err
	}
	return db, nil
}

// setAside renames dir's corrupt data file (why says how it is corrupt)
// and opens a new, empty one.
func (e *Engine) setAside(dir string, why error) (*bolt.DB, error) {
	path := filepath.Join(dir, DataFile)
	aside := fmt.Sprintf("%s.corrupt-%s", path, time.Now().UTC().Format("20060102T150405Z"))
	if err := os.Rename(path, aside); err != nil {
		return nil, fmt.Errorf("%w (and cannot set the file aside: %v)", why, err)
	}
	e.recovery = fmt.Sprintf("the data file was corrupt after a crash (%v): set aside as %s, starting empty", why, filepath.Base(aside))
	db, err := openBolt(path, &bolt.Options{Timeout: dirLockWait, NoSync: !e.opts.Durable, NoFreelistSync: true})
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, runFile), []byte(bootID()+"\n"), 0o644); err != nil {
		_ = db.Close()
		return nil, err
	}
	return db, nil
}

// openBolt is bolt.Open that turns a panic on a mangled file into an error.
func openBolt(path string, opts *bolt.Options) (db *bolt.DB, err error) {
	defer func() {
		if r := recover(); r != nil {
			db, err = nil, fmt.Errorf("%w: %v", bolterrors.ErrInvalid, r)
		}
	}()
	return bolt.Open(path, 0o644, opts)
}

// corrupt reports whether bbolt found the file is no valid database.
func corrupt(err error) bool {
	return errors.Is(err, bolterrors.ErrInvalid) || errors.Is(err, bolterrors.ErrChecksum) ||
		errors.Is(err, bolterrors.ErrVersionMismatch)
}

// checkDB reads every page of the file; the first inconsistency is the
// error.
func checkDB(db *bolt.DB) error {
	return db.View(func(tx *bolt.Tx) error {
		var first error
		for err := range tx.Check() {
			if first == nil {
				first = err
			}
		}
		if first != nil {
			return fmt.Errorf("%w: %v", bolterrors.ErrInvalid, first)
		}
		return nil
	})
}

// machineCrashed reports whether dir's run file, left by an engine that did
// not close, dates from another boot than boot (or the boot is unknown).
func machineCrashed(dir, boot string) bool {
	raw, err := os.ReadFile(filepath.Join(dir, runFile))
	if err != nil {
		return false // closed cleanly, or never opened
	}
	was := strings.TrimSpace(string(raw))
	return boot == "" || was != boot
}

// bootID is the current boot's id, "" where the system does not say.
func bootID() string {
	raw, err := os.ReadFile(bootIDFile)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(raw))
}

// closeDB closes the data file and, once it is closed, removes the run
// file: the next Open knows the engine stopped cleanly.
func (e *Engine) closeDB() error {
	if err := e.db.Close(); err != nil {
		return err
	}
	err := os.Remove(filepath.Join(e.opts.Dir, runFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}
