package cursorsecret_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
)

// fakeSecretsManager is an in-memory Secrets Manager endpoint for one
// secret, speaking the service's JSON protocol, so the tests go through
// the real SDK client: request signing, serialization and error codes.
type fakeSecretsManager struct {
	mu       sync.Mutex
	arn      string
	now      func() time.Time
	versions map[string]*fakeVersion // by version ID
	calls    map[string]int          // by operation
	down     bool                    // answer every call with a 500
}

type fakeVersion struct {
	value   string
	stages  []string
	created time.Time
}

func newFake(t *testing.T, now func() time.Time, initial string) (*fakeSecretsManager, *secretsmanager.Client) {
	f := &fakeSecretsManager{
		arn: "arn:aws:secretsmanager:eu-west-1:111122223333:secret:CursorSecret-AbCdEf",
		now: now, versions: map[string]*fakeVersion{}, calls: map[string]int{},
	}
	f.versions["v0"] = &fakeVersion{value: initial, stages: []string{"AWSCURRENT"}, created: now()}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	client := secretsmanager.New(secretsmanager.Options{
		Region:       "eu-west-1",
		BaseEndpoint: aws.String(srv.URL),
		Credentials:  credentials.NewStaticCredentialsProvider("AKIDTEST", "secret", ""),
		HTTPClient:   srv.Client(),
	})
	return f, client
}

func (f *fakeSecretsManager) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	op := strings.TrimPrefix(r.Header.Get("X-Amz-Target"), "secretsmanager.")
	f.calls[op]++
	if !strings.HasPrefix(r.Header.Get("Authorization"), "AWS4-HMAC-SHA256 ") {
		f.fail(w, 400, "IncompleteSignatureException", "request is not signed")
		return
	}
	if f.down {
		f.fail(w, 500, "InternalServiceError", "down")
		return
	}
	var in map[string]any
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		f.fail(w, 400, "SerializationException", err.Error())
		return
	}
	if in["SecretId"] != f.arn {
		f.fail(w, 400, "ResourceNotFoundException", "Secrets Manager can't find the specified secret.")
		return
	}
	str := func(k string) string { s, _ := in[k].(string); return s }
	switch op {
	case "GetSecretValue":
		f.get(w, str("VersionId"), str("VersionStage"))
	case "DescribeSecret":
		stages := map[string][]string{}
		for id, v := range f.versions {
			stages[id] = v.stages
		}
		f.reply(w, map[string]any{"ARN": f.arn, "RotationEnabled": true, "VersionIdsToStages": stages})
	case "PutSecretValue":
		id := str("ClientRequestToken")
		if v, ok := f.versions[id]; ok && v.value != "" {
			f.fail(w, 400, "ResourceExistsException", "version exists")
			return
		}
		var stages []string
		for _, s := range in["VersionStages"].([]any) {
			stages = append(stages, s.(string))
		}
		f.versions[id] = &fakeVersion{value: str("SecretString"), stages: stages, created: f.now()}
		f.reply(w, map[string]any{"ARN": f.arn, "VersionId": id, "VersionStages": stages})
	case "UpdateSecretVersionStage":
		f.move(w, str("VersionStage"), str("MoveToVersionId"), str("RemoveFromVersionId"))
	default:
		f.fail(w, 400, "InvalidAction", op)
	}
}

func (f *fakeSecretsManager) get(w http.ResponseWriter, id, stage string) {
	for vid, v := range f.versions {
		if v.value != "" && (id == "" || id == vid) && (stage == "" || slices.Contains(v.stages, stage)) {
			f.reply(w, map[string]any{"ARN": f.arn, "VersionId": vid, "SecretString": v.value,
				"VersionStages": v.stages, "CreatedDate": float64(v.created.UnixMilli()) / 1000})
			return
		}
	}
	f.fail(w, 400, "ResourceNotFoundException", fmt.Sprintf("Secrets Manager can't find the specified secret value for VersionId: %s, staging label: %s", id, stage))
}

// move follows the documented behaviour: moving AWSCURRENT labels the
// version that had it AWSPREVIOUS.
func (f *fakeSecretsManager) move(w http.ResponseWriter, stage, to, from string) {
	target, ok := f.versions[to]
	if !ok || !slices.Contains(f.versions[from].stages, stage) {
		f.fail(w, 400, "InvalidParameterException", "bad move")
		return
	}
	f.versions[from].stages = slices.DeleteFunc(f.versions[from].stages, func(s string) bool { return s == stage })
	target.stages = append(target.stages, stage)
	if stage == "AWSCURRENT" {
		for _, v := range f.versions {
			v.stages = slices.DeleteFunc(v.stages, func(s string) bool { return s == "AWSPREVIOUS" })
		}
		f.versions[from].stages = append(f.versions[from].stages, "AWSPREVIOUS")
	}
	f.reply(w, map[string]any{"ARN": f.arn})
}

func (f *fakeSecretsManager) reply(w http.ResponseWriter, body any) {
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	json.NewEncoder(w).Encode(body)
}

func (f *fakeSecretsManager) fail(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	w.Header().Set("X-Amzn-ErrorType", code)
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"__type": code, "message": msg})
}

// startRotation is what Secrets Manager does before it calls the rotation
// function: it registers the new version, without a value, as AWSPENDING.
func (f *fakeSecretsManager) startRotation(token string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.versions[token] = &fakeVersion{stages: []string{"AWSPENDING"}}
}

func (f *fakeSecretsManager) count(op string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[op]
}

func (f *fakeSecretsManager) setDown(down bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.down = down
}
