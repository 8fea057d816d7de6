package lambdaenv

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
)

// The environment variables Config reads.
const (
	RegionEnv        = "AWS_REGION"
	DefaultRegionEnv = "AWS_DEFAULT_REGION" // read when AWS_REGION is empty
	AccessKeyIDEnv   = "AWS_ACCESS_KEY_ID"
	SecretKeyEnv     = "AWS_SECRET_ACCESS_KEY"
	SessionTokenEnv  = "AWS_SESSION_TOKEN"
	EndpointURLEnv   = "AWS_ENDPOINT_URL"
	MaxAttemptsEnv   = "AWS_MAX_ATTEMPTS"
)

// ErrEnvironment is what every *VarError unwraps to.
var ErrEnvironment = errors.New("lambdaenv: bad Lambda environment")

// VarError says which variable is missing or malformed, and why.
type VarError struct {
	Name   string // the variable, such as "AWS_REGION"
	Value  string // what it holds; never set for the secret key or token
	Reason string // "must be set", "must be a positive integer", ...
}

func (e *VarError) Error() string {
	if e.Value == "" {
		return fmt.Sprintf("lambdaenv: %s %s", e.Name, e.Reason)
	}
	return fmt.Sprintf("lambdaenv: %s %s, got %q", e.Name, e.Reason, e.Value)
}

// Unwrap makes errors.Is(err, ErrEnvironment) hold.
func (e *VarError) Unwrap() error { return ErrEnvironment }

// Options change how Config reads the environment.
type Options struct {
	// Getenv reads one variable. Default os.Getenv.
	Getenv func(string) string
	// Retryer builds each client's retryer. Default retry.NewStandard();
	// AWS_MAX_ATTEMPTS, when set, caps its attempts.
	Retryer func() aws.Retryer
}

// Config returns the aws.Config of the function's region and role, built
// from Lambda's environment variables. A missing region or credential, a
// malformed AWS_ENDPOINT_URL or AWS_MAX_ATTEMPTS is a *VarError.
func Config(optFns ...func(*Options)) (aws.Config, error) {
	o := Options{Getenv: os.Getenv, Retryer: func() aws.Retryer { return retry.NewStandard() }}
	for _, fn := range optFns {
		fn(&o)
	}
	get := o.Getenv
	cfg := aws.Config{Region: get(RegionEnv), Retryer: o.Retryer}
	if cfg.Region == "" {
		cfg.Region = get(DefaultRegionEnv)
	}
	if cfg.Region == "" {
		return aws.Config{}, &VarError{Name: RegionEnv, Reason: "must be set (Lambda sets it to the function's region)"}
	}
	creds, err := staticCredentials(get)
	if err != nil {
		return aws.Config{}, err
	}
	cfg.Credentials = aws.NewCredentialsCache(creds)
	if u := get(EndpointURLEnv); u != "" {
		if p, err := url.Parse(u); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return aws.Config{}, &VarError{Name: EndpointURLEnv, Value: u, Reason: "must be an http or https URL with a host"}
		}
		cfg.BaseEndpoint = aws.String(u)
	}
	if s := get(MaxAttemptsEnv); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return aws.Config{}, &VarError{Name: MaxAttemptsEnv, Value: s, Reason: "must be a positive integer"}
		}
		cfg.RetryMaxAttempts = n
	}
	return cfg, nil
}

// staticCredentials are the role's temporary credentials that Lambda puts
// in the environment; the session token is optional for long-term keys.
func staticCredentials(get func(string) string) (aws.CredentialsProvider, error) {
	id, secret := get(AccessKeyIDEnv), get(SecretKeyEnv)
	switch {
	case id == "":
		return nil, &VarError{Name: AccessKeyIDEnv, Reason: "must be set (Lambda sets it from the execution role)"}
	case secret == "":
		return nil, &VarError{Name: SecretKeyEnv, Reason: "must be set (Lambda sets it from the execution role)"}
	}
	return credentials.NewStaticCredentialsProvider(id, secret, get(SessionTokenEnv)), nil
}
