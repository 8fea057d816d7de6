package cursorsecret_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/cursor"
	"github.com/oncetable/oncetable/runtime/cursorsecret"
)

// clock is a settable time source.
type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }

const initial = "the first version of the cursor secret, 43+"

var page = map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "USER#u1"}, "SK": &types.AttributeValueMemberS{Value: "LEDGER#1"}}

func TestCacheRefreshesOnlyAfterTheInterval(t *testing.T) {
	clk := &clock{t: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
	fake, client := newFake(t, clk.now, initial)
	cache := cursorsecret.New(client, fake.arn, func(o *cursorsecret.Options) { o.Refresh, o.Clock = 5*time.Minute, clk.now })

	// GIVEN a loaded cache: AWSCURRENT is read, AWSPREVIOUS does not exist yet
	if err := cache.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		advance   time.Duration
		wantCalls int // GetSecretValue calls so far
	}{
		{"loaded", 0, 2},
		{"within the interval", 4*time.Minute + 59*time.Second, 2},
		{"at the interval", time.Second, 4},
		{"just after a refresh", time.Minute, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk.advance(tt.advance)
			keys, err := cache.CursorKeys()
			if err != nil {
				t.Fatal(err)
			}
			if string(keys.Signing) != initial || len(keys.Verifying) != 1 {
				t.Errorf("keys = %q / %d verifying, want the initial version alone", keys.Signing, len(keys.Verifying))
			}
			if got := fake.count("GetSecretValue"); got != tt.wantCalls {
				t.Errorf("GetSecretValue calls = %d, want %d", got, tt.wantCalls)
			}
		})
	}
}

func TestCacheKeepsKeysWhenRefreshFails(t *testing.T) {
	clk := &clock{t: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
	fake, client := newFake(t, clk.now, initial)
	opts := func(o *cursorsecret.Options) { o.Clock = clk.now }

	t.Run("never loaded", func(t *testing.T) {
		fake.setDown(true)
		defer fake.setDown(false)
		_, err := cursorsecret.New(client, fake.arn, opts).CursorKeys()
		if !errors.Is(err, cursorsecret.ErrFetch) {
			t.Errorf("CursorKeys error = %v, want ErrFetch", err)
		}
	})
	t.Run("loaded, then Secrets Manager fails", func(t *testing.T) {
		cache := cursorsecret.New(client, fake.arn, opts)
		if err := cache.Load(context.Background()); err != nil {
			t.Fatal(err)
		}
		fake.setDown(true)
		defer fake.setDown(false)
		clk.advance(10 * time.Minute)
		keys, err := cache.CursorKeys()
		if err != nil || string(keys.Signing) != initial {
			t.Errorf("CursorKeys = %q, %v; want the keys held before", keys.Signing, err)
		}
		if !errors.Is(cache.Err(), cursorsecret.ErrFetch) {
			t.Errorf("Err() = %v, want the failed refresh", cache.Err())
		}
	})
	t.Run("unknown secret", func(t *testing.T) {
		err := cursorsecret.New(client, "arn:aws:secretsmanager:eu-west-1:111122223333:secret:Other", opts).Load(context.Background())
		var fe *cursorsecret.FetchError
		if !errors.As(err, &fe) || fe.Stage != cursorsecret.StageCurrent {
			t.Errorf("Load error = %v, want a FetchError of AWSCURRENT", err)
		}
	})
}

func TestCacheRejectsShortSecret(t *testing.T) {
	fake, client := newFake(t, time.Now, "too short")
	err := cursorsecret.New(client, fake.arn).Load(context.Background())
	if !errors.Is(err, cursorsecret.ErrTooShort) {
		t.Errorf("Load error = %v, want ErrTooShort", err)
	}
}

// TestRotationKeepsLiveCursorsValid rotates the secret twice through the
// rotation function and follows one cursor issued before the first one.
func TestRotationKeepsLiveCursorsValid(t *testing.T) {
	clk := &clock{t: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
	fake, client := newFake(t, clk.now, initial)
	cache := cursorsecret.New(client, fake.arn, func(o *cursorsecret.Options) {
		o.Refresh, o.SigningDelay, o.Clock = 5*time.Minute, 6*time.Minute, clk.now
	})
	if err := cache.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	codec := cursor.New(nil)
	codec.UseKeySource(cache)
	rotator := cursorsecret.NewRotator(client)
	rotate := func(token string) {
		t.Helper()
		fake.startRotation(token)
		for _, step := range []string{cursorsecret.StepCreate, cursorsecret.StepSet, cursorsecret.StepTest, cursorsecret.StepFinish} {
			if err := rotator.Handle(context.Background(), cursorsecret.RotationEvent{Step: step, SecretID: fake.arn, ClientRequestToken: token}); err != nil {
				t.Fatalf("%s: %v", step, err)
			}
		}
	}
	issue := func() string {
		t.Helper()
		tok, err := codec.Encode("ledger|USER#u1", page)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	valid := func(tok string) bool {
		_, err := codec.Decode("ledger|USER#u1", tok)
		if err != nil && !errors.Is(err, cursor.ErrInvalid) {
			t.Fatal(err)
		}
		return err == nil
	}

	before := issue()
	rotate("v1")
	steps := []struct {
		name        string
		advance     time.Duration
		sameSigning bool // new cursors are still signed with the initial version
	}{
		{"rotated, cache not yet refreshed", time.Minute, true},
		{"refreshed: v1 verifies, but is too new to sign", 4 * time.Minute, true},
		{"v1 older than the signing delay: it signs", 6 * time.Minute, false},
	}
	for _, st := range steps {
		clk.advance(st.advance)
		if !valid(before) {
			t.Errorf("%s: the cursor issued before the rotation no longer verifies", st.name)
		}
		if got := issue() == before; got != st.sameSigning {
			t.Errorf("%s: signed with the initial version = %v, want %v", st.name, got, st.sameSigning)
		}
	}
	afterFirst := issue()

	// WHEN the secret rotates again, the initial version is neither current nor previous
	rotate("v2")
	clk.advance(6 * time.Minute)
	if valid(before) {
		t.Error("a cursor of the version two rotations back still verifies")
	}
	if !valid(afterFirst) {
		t.Error("a cursor signed with the previous version does not verify")
	}
}

func TestRotatorSteps(t *testing.T) {
	fake, client := newFake(t, time.Now, initial)
	rotator := cursorsecret.NewRotator(client)
	handle := func(step, token string) error {
		return rotator.Handle(context.Background(), cursorsecret.RotationEvent{Step: step, SecretID: fake.arn, ClientRequestToken: token})
	}
	fake.startRotation("v1")
	if err := handle(cursorsecret.StepCreate, "v1"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, step, token string
		wantErr           error
	}{
		{"repeated createSecret puts nothing twice", cursorsecret.StepCreate, "v1", nil},
		{"testSecret of the new version", cursorsecret.StepTest, "v1", nil},
		{"unknown version", cursorsecret.StepTest, "v9", cursorsecret.ErrRotation},
		{"the current version is not pending", cursorsecret.StepTest, "v0", nil},
		{"unknown step", "dropSecret", "v1", cursorsecret.ErrRotation},
		{"finishSecret", cursorsecret.StepFinish, "v1", nil},
		{"repeated finishSecret", cursorsecret.StepFinish, "v1", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := handle(tt.step, tt.token); !errors.Is(err, tt.wantErr) {
				t.Errorf("Handle(%s, %s) = %v, want %v", tt.step, tt.token, err, tt.wantErr)
			}
		})
	}
	if n := fake.count("PutSecretValue"); n != 1 {
		t.Errorf("PutSecretValue calls = %d, want 1", n)
	}
	cache := cursorsecret.New(client, fake.arn)
	if err := cache.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	keys, _ := cache.CursorKeys()
	if len(keys.Verifying) != 2 || string(keys.Verifying[1]) != initial || len(keys.Verifying[0]) != 43 {
		t.Errorf("after rotation: verifying %q, want a new 43-character AWSCURRENT and the initial AWSPREVIOUS", keys.Verifying)
	}
}
