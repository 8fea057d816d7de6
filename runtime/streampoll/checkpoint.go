package streampoll

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// Checkpoints keeps, per shard of a stream, the sequence number of the
// last record a Poller finished with (handled, or given up to OnFailure),
// as an event source mapping keeps its position in each shard. A new
// Poller given the same Checkpoints resumes after that record
// (GetShardIterator AFTER_SEQUENCE_NUMBER): a batch that a crashed poller
// was handling is delivered again from its first unfinished record.
type Checkpoints interface {
	// Load returns the checkpoint of a shard, "" when it has none.
	Load(ctx context.Context, streamARN, shardID string) (string, error)
	// Save records the checkpoint of a shard.
	Save(ctx context.Context, streamARN, shardID, sequenceNumber string) error
}

// MemoryCheckpoints keeps checkpoints in memory, for pollers of one
// process (one after another, as after a crash of a consumer). The zero
// value is ready to use.
type MemoryCheckpoints struct {
	mu sync.Mutex
	m  map[string]string
}

// Load implements Checkpoints.
func (c *MemoryCheckpoints) Load(_ context.Context, streamARN, shardID string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[streamARN+" "+shardID], nil
}

// Save implements Checkpoints.
func (c *MemoryCheckpoints) Save(_ context.Context, streamARN, shardID, seq string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]string{}
	}
	c.m[streamARN+" "+shardID] = seq
	return nil
}

// FileCheckpoints keeps checkpoints in a JSON file, for a consumer that
// restarts with its data (the local runner's -data-dir). Each Save
// rewrites the file through a temporary file and a rename, so a crash of
// the process leaves the previous checkpoints or the new ones, never a
// torn file (it does not fsync: a power loss may lose the last ones,
// which redelivers their records).
type FileCheckpoints struct {
	path string
	mu   sync.Mutex
}

// NewFileCheckpoints keeps checkpoints in the file at path; the file is
// created by the first Save.
func NewFileCheckpoints(path string) *FileCheckpoints { return &FileCheckpoints{path: path} }

func (c *FileCheckpoints) read() (map[string]string, error) {
	raw, err := os.ReadFile(c.path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("streampoll: checkpoints: %w", err)
	}
	m := map[string]string{}
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("streampoll: checkpoints %s: %w", c.path, err)
	}
	return m, nil
}

// Load implements Checkpoints.
func (c *FileCheckpoints) Load(_ context.Context, streamARN, shardID string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m, err := c.read()
	return m[streamARN+" "+shardID], err
}

// Save implements Checkpoints.
func (c *FileCheckpoints) Save(_ context.Context, streamARN, shardID, seq string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	m, err := c.read()
	if err != nil {
		return err
	}
	m[streamARN+" "+shardID] = seq
	raw, _ := json.MarshalIndent(m, "", "  ") // a map of strings always marshals
	tmp, err := os.CreateTemp(filepath.Dir(c.path), filepath.Base(c.path)+".*")
	if err != nil {
		return fmt.Errorf("streampoll: checkpoints: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(raw, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("streampoll: checkpoints: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("streampoll: checkpoints: %w", err)
	}
	if err := os.Rename(tmp.Name(), c.path); err != nil {
		return fmt.Errorf("streampoll: checkpoints: %w", err)
	}
	return nil
}
