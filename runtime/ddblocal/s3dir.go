package ddblocal

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// Exports and imports (ExportTableToPointInTime, ImportTable) read and write
// S3 the way DynamoDB does, with Options.S3Dir standing for S3: bucket b is
// the directory S3Dir/b and an object key its path below it.

// bucketDir returns the directory of an S3 bucket, or "" when the engine
// has no S3 directory or the bucket does not exist.
func (e *Engine) bucketDir(bucket string) string {
	if e.opts.S3Dir == "" || bucket == "" || strings.ContainsAny(bucket, `/\`) || bucket == "." || bucket == ".." {
		return ""
	}
	dir := filepath.Join(e.opts.S3Dir, bucket)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return ""
	}
	return dir
}

// objectPath is where the object key of a bucket directory is; keys that
// would leave the bucket are refused.
func objectPath(bucketDir, key string) (string, error) {
	p := filepath.Join(bucketDir, filepath.FromSlash(key))
	if p != bucketDir && !strings.HasPrefix(p, bucketDir+string(filepath.Separator)) {
		return "", fmt.Errorf("object key %q leaves the bucket", key)
	}
	return p, nil
}

// listObjects returns the keys of a bucket's objects that start with
// prefix, in key order, as S3's ListObjectsV2 does.
func listObjects(bucketDir, prefix string) ([]string, error) {
	var keys []string
	err := filepath.WalkDir(bucketDir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(bucketDir, p)
		if err != nil {
			return err
		}
		if key := filepath.ToSlash(rel); strings.HasPrefix(key, prefix) {
			keys = append(keys, key)
		}
		return nil
	})
	sort.Strings(keys)
	return keys, err
}

// jobID is an export or import id as DynamoDB makes them: the time in
// milliseconds (14 digits) and 8 random hex digits.
func jobID(now time.Time) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%014d-%s", now.UnixMilli(), hex.EncodeToString(b[:]))
}

// jobs holds the exports and imports the engine ran (in memory: they are
// not kept across restarts, their files are).
type jobs struct {
	mu      sync.Mutex
	exports []*exportJob
	imports []*importJob
}

// pageAfter returns the items of list after the one named next, at most n.
func pageAfter[T any](list []T, name func(T) string, next *string, n int) ([]T, *string) {
	start := 0
	if next != nil {
		for i, it := range list {
			if name(it) == *next {
				start = i + 1
			}
		}
	}
	end := min(start+n, len(list))
	out := list[start:end]
	if end < len(list) && len(out) > 0 {
		last := name(out[len(out)-1])
		return out, &last
	}
	return out, nil
}

// ms renders a time as DynamoDB's JSON numbers of seconds.
func ms(t time.Time) float64 { return float64(t.UnixMilli()) / 1000 }
