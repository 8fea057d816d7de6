package opsenv

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
)

// Local is the name of make run's environment.
const Local = "local"

// The endpoints of make run.
const (
	LocalDynamoDB = "http://127.0.0.1:8000"
	LocalAPI      = "http://127.0.0.1:8080"
	// LocalEventBridge is the runner's PutEvents endpoint
	// (localrun.EventBridgePath).
	LocalEventBridge = LocalAPI + "/_local/eventbridge"
)

// contextKey is cdk.json's key of the environments (stacks/envconfig).
const contextKey = "oncetable:environments"

// StackOutput reads an output of a deployed stack.
type StackOutput func(ctx context.Context, region, stack, key string) (string, error)

// Options configures Resolve.
type Options struct {
	// CDKJSON is the path of cdk.json. Default: "cdk.json".
	CDKJSON string
	// StackOutput reads the stack's outputs. Default: AWSCLIStackOutput.
	StackOutput StackOutput
}

// Env is a resolved environment.
type Env struct {
	Name   string
	Region string // "" for local
	Stack  string // OnceTable-<env>; "" for local
	output StackOutput
}

// IsLocal reports whether e is make run's.
func (e Env) IsLocal() bool { return e.Name == Local }

// Output reads an output of e's stack.
func (e Env) Output(ctx context.Context, key string) (string, error) {
	if e.IsLocal() {
		return "", fmt.Errorf("opsenv: the local environment has no stack output %s", key)
	}
	v, err := e.output(ctx, e.Region, e.Stack, key)
	if err != nil {
		return "", fmt.Errorf("the %s of %s: %w", key, e.Name, err)
	}
	return v, nil
}

// Resolve returns the environment named name: local, or one of cdk.json's
// with a Region.
func Resolve(name string, opts ...func(*Options)) (Env, error) {
	o := Options{CDKJSON: "cdk.json", StackOutput: AWSCLIStackOutput}
	for _, f := range opts {
		f(&o)
	}
	if name == Local {
		return Env{Name: Local}, nil
	}
	data, err := os.ReadFile(o.CDKJSON)
	if err != nil {
		return Env{}, err
	}
	var file struct {
		Context map[string]json.RawMessage `json:"context"`
	}
	envs := map[string]struct {
		Region string `json:"region"`
	}{}
	if err := json.Unmarshal(data, &file); err != nil {
		return Env{}, fmt.Errorf("cdk.json: %w", err)
	}
	if err := json.Unmarshal(file.Context[contextKey], &envs); err != nil {
		return Env{}, fmt.Errorf("cdk.json %s: %w", contextKey, err)
	}
	e, ok := envs[name]
	if !ok || e.Region == "" {
		names := slices.Sorted(maps.Keys(envs))
		return Env{}, fmt.Errorf("-env %q is not local or an environment of cdk.json with a region (%s)", name, strings.Join(names, ", "))
	}
	return Env{Name: name, Region: e.Region, Stack: "OnceTable-" + name, output: o.StackOutput}, nil
}

// AWSCLIStackOutput reads an output of a deployed stack with the AWS CLI.
func AWSCLIStackOutput(ctx context.Context, region, stack, key string) (string, error) {
	out, err := exec.CommandContext(ctx, "aws", "cloudformation", "describe-stacks", "--region", region, "--stack-name", stack,
		"--query", "Stacks[0].Outputs[?OutputKey=='"+key+"'].OutputValue", "--output", "text").Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", fmt.Errorf("aws cloudformation describe-stacks %s: %w: %s", stack, err, strings.TrimSpace(string(ee.Stderr)))
		}
		return "", fmt.Errorf("aws cloudformation describe-stacks %s: %w", stack, err)
	}
	v := strings.TrimSpace(string(out))
	if v == "" || v == "None" {
		return "", fmt.Errorf("stack %s has no output %s (deploy it first)", stack, key)
	}
	return v, nil
}

// LocalCredentials are what the local engine accepts (any).
var LocalCredentials = aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
	return aws.Credentials{AccessKeyID: "local", SecretAccessKey: "local"}, nil
})
