package canary

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// The function's environment (constructs/canary sets it).
const (
	// URLEnv is the API's invoke URL.
	URLEnv = "CANARY_API_URL"
	// UserEnv is the canary user. Default: "canary".
	UserEnv = "CANARY_USER"
)

// Config is the function's environment, written by constructs/canary and
// read by lambdas/canary.
type Config struct {
	URL    string // the API's invoke URL; required
	UserID string // default "canary"
}

// ErrNoURL reports an environment without URLEnv.
var ErrNoURL = errors.New("canary: " + URLEnv + " is not set")

// LoadConfig reads Config from getenv.
func LoadConfig(getenv func(string) string) (Config, error) {
	c := Config{URL: getenv(URLEnv), UserID: getenv(UserEnv)}
	if c.URL == "" {
		return Config{}, ErrNoURL
	}
	return c, nil
}

// Environment is c as the function's variables.
func (c Config) Environment() map[string]string {
	env := map[string]string{URLEnv: c.URL}
	if c.UserID != "" {
		env[UserEnv] = c.UserID
	}
	return env
}

// SigV4 signs requests for API Gateway's IAM authorization (service
// execute-api) with cfg's credentials and Region: the function's role.
func SigV4(cfg aws.Config) func(*http.Request, []byte) error {
	signer := v4.NewSigner()
	return func(r *http.Request, body []byte) error {
		creds, err := cfg.Credentials.Retrieve(r.Context())
		if err != nil {
			return err
		}
		sum := sha256.Sum256(body)
		return signer.SignHTTP(r.Context(), creds, r, hex.EncodeToString(sum[:]), "execute-api", cfg.Region, time.Now())
	}
}

// Summary is what one invocation returns and logs.
type Summary struct {
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
	Steps []Step `json:"steps"`
}

// Handler runs the canary once per invocation (EventBridge Scheduler's
// empty event). A failed run is a Summary with OK false and a log line,
// not an error: the metric says it, and an error would make Lambda retry
// a probe whose moment has passed.
func Handler(c *Canary, log *slog.Logger) func(ctx context.Context) (Summary, error) {
	return func(ctx context.Context) (Summary, error) {
		res := c.Run(ctx)
		s := Summary{OK: res.Err == nil, Steps: res.Steps}
		if res.Err != nil {
			s.Error = res.Err.Error()
			log.ErrorContext(ctx, "canary failed", "error", s.Error, "steps", fmt.Sprint(res.Steps))
		} else {
			log.InfoContext(ctx, "canary succeeded", "steps", len(res.Steps))
		}
		return s, nil
	}
}
