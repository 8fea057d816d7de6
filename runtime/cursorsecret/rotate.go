package cursorsecret

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager/types"
)

// Rotation steps, in the order Secrets Manager calls them.
const (
	StepCreate = "createSecret"
	StepSet    = "setSecret"
	StepTest   = "testSecret"
	StepFinish = "finishSecret"
)

// ErrRotation means a rotation event cannot be carried out; Secrets
// Manager marks the rotation failed and retries it.
var ErrRotation = errors.New("cursorsecret: rotation refused")

// RotationError says why one step was refused.
type RotationError struct {
	Step, SecretID, Reason string
}

func (e *RotationError) Error() string {
	return fmt.Sprintf("cursorsecret: %s of %s: %s", e.Step, e.SecretID, e.Reason)
}

// Unwrap makes errors.Is(err, ErrRotation) hold.
func (e *RotationError) Unwrap() error { return ErrRotation }

// RotationEvent is what Secrets Manager sends the rotation function.
type RotationEvent struct {
	Step               string `json:"Step"`
	SecretID           string `json:"SecretId"`
	ClientRequestToken string `json:"ClientRequestToken"`
}

// RotationClient is the part of the Secrets Manager client rotation uses.
type RotationClient interface {
	Client
	DescribeSecret(ctx context.Context, in *secretsmanager.DescribeSecretInput, optFns ...func(*secretsmanager.Options)) (*secretsmanager.DescribeSecretOutput, error)
	PutSecretValue(ctx context.Context, in *secretsmanager.PutSecretValueInput, optFns ...func(*secretsmanager.Options)) (*secretsmanager.PutSecretValueOutput, error)
	UpdateSecretVersionStage(ctx context.Context, in *secretsmanager.UpdateSecretVersionStageInput, optFns ...func(*secretsmanager.Options)) (*secretsmanager.UpdateSecretVersionStageOutput, error)
}

// Rotator rotates the cursor secret.
type Rotator struct {
	client RotationClient
}

// NewRotator returns the rotation handler over client.
func NewRotator(client RotationClient) *Rotator { return &Rotator{client: client} }

// keyBytes is the entropy of a new version: 256 bits, base64url-encoded to
// 43 characters (MinLength 32 holds).
const keyBytes = 32

// Handle runs one step. Each step is idempotent: Secrets Manager may
// deliver an event more than once.
func (r *Rotator) Handle(ctx context.Context, ev RotationEvent) error {
	refuse := func(reason string, args ...any) error {
		return &RotationError{Step: ev.Step, SecretID: ev.SecretID, Reason: fmt.Sprintf(reason, args...)}
	}
	desc, err := r.client.DescribeSecret(ctx, &secretsmanager.DescribeSecretInput{SecretId: &ev.SecretID})
	if err != nil {
		return fmt.Errorf("cursorsecret: DescribeSecret %s: %w", ev.SecretID, err)
	}
	if desc.RotationEnabled == nil || !*desc.RotationEnabled {
		return refuse("rotation is not enabled on the secret")
	}
	stages, ok := desc.VersionIdsToStages[ev.ClientRequestToken]
	switch {
	case !ok:
		return refuse("version %s is not a version of the secret", ev.ClientRequestToken)
	case slices.Contains(stages, StageCurrent):
		return nil // this version is already current: a repeated event
	case !slices.Contains(stages, StagePending):
		return refuse("version %s is not staged %s", ev.ClientRequestToken, StagePending)
	}
	switch ev.Step {
	case StepCreate:
		return r.create(ctx, ev)
	case StepSet:
		// Nothing outside Secrets Manager holds the key: the api function
		// reads both versions itself.
		return nil
	case StepTest:
		_, err := (&Cache{client: r.client, secretID: ev.SecretID}).pending(ctx, ev.ClientRequestToken)
		return err
	case StepFinish:
		return r.finish(ctx, ev, desc.VersionIdsToStages)
	default:
		return refuse("unknown step %q", ev.Step)
	}
}

func (r *Rotator) create(ctx context.Context, ev RotationEvent) error {
	c := &Cache{client: r.client, secretID: ev.SecretID}
	if _, err := c.version(ctx, StageCurrent); err != nil {
		return err
	}
	_, err := c.pending(ctx, ev.ClientRequestToken)
	var missing *types.ResourceNotFoundException
	if !errors.As(err, &missing) {
		return err // nil: a repeated event already created the version
	}
	raw := make([]byte, keyBytes)
	if _, err := rand.Read(raw); err != nil {
		return err
	}
	value := base64.RawURLEncoding.EncodeToString(raw)
	_, err = r.client.PutSecretValue(ctx, &secretsmanager.PutSecretValueInput{
		SecretId: &ev.SecretID, ClientRequestToken: &ev.ClientRequestToken,
		SecretString: &value, VersionStages: []string{StagePending},
	})
	if err != nil {
		return fmt.Errorf("cursorsecret: PutSecretValue %s: %w", ev.SecretID, err)
	}
	return nil
}

func (r *Rotator) finish(ctx context.Context, ev RotationEvent, versions map[string][]string) error {
	for id, stages := range versions {
		if !slices.Contains(stages, StageCurrent) {
			continue
		}
		stage := StageCurrent
		_, err := r.client.UpdateSecretVersionStage(ctx, &secretsmanager.UpdateSecretVersionStageInput{
			SecretId: &ev.SecretID, VersionStage: &stage,
			MoveToVersionId: &ev.ClientRequestToken, RemoveFromVersionId: &id,
		})
		if err != nil {
			return fmt.Errorf("cursorsecret: UpdateSecretVersionStage %s: %w", ev.SecretID, err)
		}
		return nil
	}
	return &RotationError{Step: ev.Step, SecretID: ev.SecretID, Reason: "no version is " + StageCurrent}
}

// pending reads the AWSPENDING version created for token.
func (c *Cache) pending(ctx context.Context, token string) (*version, error) {
	stage := StagePending
	out, err := c.client.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{
		SecretId: &c.secretID, VersionId: &token, VersionStage: &stage,
	})
	if err != nil {
		return nil, &FetchError{SecretID: c.secretID, Stage: stage, Err: err}
	}
	if out.SecretString == nil || len(*out.SecretString) < MinLength {
		return nil, &FetchError{SecretID: c.secretID, Stage: stage, Err: fmt.Errorf("%w: want at least %d bytes", ErrTooShort, MinLength)}
	}
	return &version{value: []byte(*out.SecretString)}, nil
}
