package ddblocal

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
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
	if err := checkTags(in.Tags); err != nil {
		return nil, err
	}
	t, err := e.tableByARN("TagResource", in.ResourceArn)
	if err != nil {
		return nil, err
	}
	err = t.locked(func() error {
		n := len(t.tags)
		for _, tg := range in.Tags {
			if _, ok := t.tags[tg.Key]; !ok {
				n++
			}
		}
		if n > maxTags {
			return tooManyTags()
		}
		if t.tags == nil {
			t.tags = map[string]string{}
		}
		for _, tg := range in.Tags {
			t.tags[tg.Key] = tg.Value
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
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

// The tag rules (Developer Guide, "Tagging restrictions in DynamoDB"; API
// Reference, Tag): a key of 1 to 128 Unicode characters, a value of up to
// 256, made of letters, digits, white space and + - = . _ : /, a key that
// does not start with the aws: prefix AWS keeps for itself, and at most 50
// tags on a resource. Lengths are refused in the API model's message form;
// the characters and the count with the engine's wording, DynamoDB's not
// being documented.
const (
	maxTags           = 50
	maxTagKeyChars    = 128
	maxTagValueChars  = 256
	tagSpecialSymbols = "+-=._:/"
)

// checkTags validates the tags of a TagResource or CreateTable request.
func checkTags(tags []tag) error {
	for i, tg := range tags {
		at := "tags." + strconv.Itoa(i+1) + ".member."
		switch k := utf8.RuneCountInString(tg.Key); {
		case k < 1:
			return validationf("1 validation error detected: Value '%s' at '%skey' failed to satisfy constraint: Member must have length greater than or equal to 1", tg.Key, at)
		case k > maxTagKeyChars:
			return validationf("1 validation error detected: Value '%s' at '%skey' failed to satisfy constraint: Member must have length less than or equal to %d", tg.Key, at, maxTagKeyChars)
		}
		if utf8.RuneCountInString(tg.Value) > maxTagValueChars {
			return validationf("1 validation error detected: Value '%s' at '%svalue' failed to satisfy constraint: Member must have length less than or equal to %d", tg.Value, at, maxTagValueChars)
		}
		for _, s := range []struct{ what, v string }{{"key", tg.Key}, {"value", tg.Value}} {
			if !tagChars(s.v) {
				return validationf("One or more parameter values were invalid: The tag %s %q may contain only letters, digits, white space and + - = . _ : /", s.what, s.v)
			}
		}
		if strings.HasPrefix(strings.ToLower(tg.Key), "aws:") {
			return validationf("One or more parameter values were invalid: The tag key %q uses the aws: prefix, which AWS reserves", tg.Key)
		}
	}
	if len(tags) > maxTags {
		return tooManyTags()
	}
	return nil
}

func tagChars(s string) bool {
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsSpace(r) && !strings.ContainsRune(tagSpecialSymbols, r) {
			return false
		}
	}
	return true
}

func tooManyTags() *APIError {
	return validationf("One or more parameter values were invalid: A resource may have at most %d tags", maxTags)
}
