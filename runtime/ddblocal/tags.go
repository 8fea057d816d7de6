package ddblocal

import (
	"context"
	"sort"
	"strings"
)

type tag struct {
	Key   string
	Value string
}

type tagResourceInput struct {
	ResourceArn string
	Tags        []tag
	TagKeys     []string
	NextToken   *string
}

func (in *tagResourceInput) tableNames() []string { return []string{tableOfARN(in.ResourceArn)} }

// tableOfARN returns the table named by a table ARN, or "".
func tableOfARN(arn string) string {
	_, rest, ok := strings.Cut(arn, ":table/")
	if !ok || !strings.HasPrefix(arn, "arn:") {
		return ""
	}
	name, _, _ := strings.Cut(rest, "/")
	return name
}

// CodeAccessDenied is the error of a request on a resource the caller
// may not use, or that does not exist in the caller's account.
const CodeAccessDenied = "AccessDeniedException"

// tableByARN finds the table a tagging operation (action) names. A
// malformed ARN is a ValidationException; one naming no table of this
// account is an AccessDeniedException, as DynamoDB authorises the action
// on the resource before looking it up (API Reference, ListTagsOfResource
// and TagResource: AccessDeniedException).
func (e *Engine) tableByARN(action, arn string) (*table, error) {
	name := tableOfARN(arn)
	if name == "" {
		return nil, validationf("Invalid TableArn: Invalid ResourceArn provided as input %s", arn)
	}
	t, err := e.table(name)
	if err != nil || t.arn != arn {
		return nil, newError(CodeAccessDenied, "User: arn:aws:iam::%s:root is not authorized to perform: dynamodb:%s on resource: %s because no identity-based policy allows the dynamodb:%s action", e.opts.AccountID, action, arn, action)
	}
	return t, nil
}

func (e *Engine) tagResource(_ context.Context, in *tagResourceInput) (any, error) {
	if len(in.Tags) == 0 {
		return nil, validationf("1 validation error detected: Value null at 'tags' failed to satisfy constraint: Member must not be null")
	}
	t, err := e.tableByARN("TagResource", in.ResourceArn)
	if err != nil {
		return nil, err
	}
	_ = t.locked(func() error {
		if t.tags == nil {
			t.tags = map[string]string{}
		}
		for _, tg := range in.Tags {
			t.tags[tg.Key] = tg.Value
		}
		return nil
	})
	return noOutput{}, e.persistTable(t)
}

func (e *Engine) untagResource(_ context.Context, in *tagResourceInput) (any, error) {
	t, err := e.tableByARN("UntagResource", in.ResourceArn)
	if err != nil {
		return nil, err
	}
	_ = t.locked(func() error {
		for _, k := range in.TagKeys {
			delete(t.tags, k)
		}
		return nil
	})
	return noOutput{}, e.persistTable(t)
}

func (e *Engine) listTagsOfResource(_ context.Context, in *tagResourceInput) (any, error) {
	t, err := e.tableByARN("ListTagsOfResource", in.ResourceArn)
	if err != nil {
		return nil, err
	}
	var tags []tag
	t.rlocked(func() {
		for k, v := range t.tags {
			tags = append(tags, tag{k, v})
		}
	})
	sort.Slice(tags, func(i, j int) bool { return tags[i].Key < tags[j].Key })
	if tags == nil {
		tags = []tag{}
	}
	return map[string]any{"Tags": tags}, nil
}
