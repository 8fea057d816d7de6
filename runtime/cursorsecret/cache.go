package cursorsecret

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager/types"

	"github.com/oncetable/oncetable/runtime/cursor"
)

// Staging labels of Secrets Manager.
const (
	StageCurrent  = "AWSCURRENT"
	StagePrevious = "AWSPREVIOUS"
	StagePending  = "AWSPENDING"
)

// MinLength is the shortest secret value accepted, in bytes.
const MinLength = 32

// Sentinel errors; the typed errors below wrap them.
var (
	// ErrFetch means Secrets Manager did not return a version.
	ErrFetch = errors.New("cursorsecret: cannot read the secret")
	// ErrTooShort means a version's value is shorter than MinLength.
	ErrTooShort = errors.New("cursorsecret: secret value too short")
)

// FetchError is a failed GetSecretValue of one staging label.
type FetchError struct {
	SecretID string
	Stage    string
	Err      error
}

func (e *FetchError) Error() string {
	return fmt.Sprintf("cursorsecret: GetSecretValue %s (%s): %v", e.SecretID, e.Stage, e.Err)
}

// Unwrap makes errors.Is(err, ErrFetch) and errors.As on the SDK error hold.
func (e *FetchError) Unwrap() []error { return []error{ErrFetch, e.Err} }

// Client is the part of the Secrets Manager client the cache uses.
type Client interface {
	GetSecretValue(ctx context.Context, in *secretsmanager.GetSecretValueInput, optFns ...func(*secretsmanager.Options)) (*secretsmanager.GetSecretValueOutput, error)
}

// Options configures a [Cache].
type Options struct {
	// Refresh is how long fetched versions are used before the next
	// call fetches them again. Default: 5 minutes.
	Refresh time.Duration
	// SigningDelay is how old a new AWSCURRENT version must be before it
	// signs; until then AWSPREVIOUS signs. It must cover Refresh, so every
	// instance can verify a cursor before any instance issues one.
	// Default: Refresh plus one minute.
	SigningDelay time.Duration
	// Timeout bounds one refresh. Default: 3 seconds.
	Timeout time.Duration
	// Clock is the time source. Default: time.Now.
	Clock func() time.Time
}

// Cache holds the current and previous versions of one secret.
type Cache struct {
	client   Client
	secretID string
	opts     Options

	mu      sync.Mutex
	keys    cursor.Keys
	fetched time.Time // zero until the first successful fetch
	lastErr error
}

// New returns a cache of the secret secretID (its ARN or name). It fetches
// nothing until Load or the first CursorKeys.
func New(client Client, secretID string, opts ...func(*Options)) *Cache {
	o := Options{}
	for _, f := range opts {
		f(&o)
	}
	if o.Refresh <= 0 {
		o.Refresh = 5 * time.Minute
	}
	if o.SigningDelay <= 0 {
		o.SigningDelay = o.Refresh + time.Minute
	}
	if o.Timeout <= 0 {
		o.Timeout = 3 * time.Second
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	return &Cache{client: client, secretID: secretID, opts: o}
}

// Load fetches both versions now. A function calls it while it
// initializes, so a secret it cannot read fails the cold start rather than
// the first paginated request.
func (c *Cache) Load(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.refresh(ctx)
}

// CursorKeys returns the keys, fetching them again when they are older
// than Refresh. When a refresh fails the keys already held stay in use
// (Err reports the failure); only a cache that never loaded returns the
// error.
func (c *Cache) CursorKeys() (cursor.Keys, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fetched.IsZero() || c.opts.Clock().Sub(c.fetched) >= c.opts.Refresh {
		ctx, cancel := context.WithTimeout(context.Background(), c.opts.Timeout)
		err := c.refresh(ctx)
		cancel()
		if err != nil && c.fetched.IsZero() {
			return cursor.Keys{}, err
		}
	}
	return c.keys, nil
}

// Err is the error of the last refresh, nil after a successful one.
func (c *Cache) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lastErr
}

func (c *Cache) refresh(ctx context.Context) error {
	now := c.opts.Clock()
	current, err := c.version(ctx, StageCurrent)
	if err != nil {
		c.lastErr = err
		return err
	}
	previous, err := c.version(ctx, StagePrevious)
	var missing *types.ResourceNotFoundException
	if errors.As(err, &missing) {
		// Never rotated: there is no AWSPREVIOUS version yet.
		previous, err = nil, nil
	}
	if err != nil {
		c.lastErr = err
		return err
	}
	keys := cursor.Keys{Signing: current.value, Verifying: [][]byte{current.value}}
	if previous != nil {
		keys.Verifying = append(keys.Verifying, previous.value)
		if now.Sub(current.created) < c.opts.SigningDelay {
			keys.Signing = previous.value
		}
	}
	c.keys, c.fetched, c.lastErr = keys, now, nil
	return nil
}

type version struct {
	value   []byte
	created time.Time
}

func (c *Cache) version(ctx context.Context, stage string) (*version, error) {
	out, err := c.client.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{
		SecretId: &c.secretID, VersionStage: &stage,
	})
	if err != nil {
		return nil, &FetchError{SecretID: c.secretID, Stage: stage, Err: err}
	}
	v := &version{value: out.SecretBinary}
	if out.SecretString != nil {
		v.value = []byte(*out.SecretString)
	}
	if out.CreatedDate != nil {
		v.created = *out.CreatedDate
	}
	if len(v.value) < MinLength {
		return nil, &FetchError{SecretID: c.secretID, Stage: stage,
			Err: fmt.Errorf("%w: %d bytes, want at least %d", ErrTooShort, len(v.value), MinLength)}
	}
	return v, nil
}
