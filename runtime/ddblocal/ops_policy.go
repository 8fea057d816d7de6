package ddblocal

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
)

// Resource-based policies (API Reference, PutResourcePolicy,
// GetResourcePolicy, DeleteResourcePolicy): one policy document per table
// and per stream, each with a revision id. The engine stores them, versions
// them and answers DynamoDB's errors; it does not enforce them (it has no
// principals to enforce them against).

// CodePolicyNotFound is the error of a policy request on a resource that
// has no policy, or whose policy's revision is not the one expected.
const CodePolicyNotFound = "PolicyNotFoundException"

// maxPolicyBytes is the largest policy document: 20 KB, whitespace counted.
const maxPolicyBytes = 20 * 1024

// noPolicy is the ExpectedRevisionId that attaches a policy only when the
// resource has none.
const noPolicy = "NO_POLICY"

// resourcePolicy is the policy of one table or stream.
type resourcePolicy struct {
	Document string
	Revision string
}

type resourcePolicyInput struct {
	ResourceArn                     string
	Policy                          *string
	ExpectedRevisionId              *string
	ConfirmRemoveSelfResourceAccess bool
}

func (in *resourcePolicyInput) tableNames() []string { return []string{tableOfARN(in.ResourceArn)} }

// policyInputs tell the operations apart for validation: Put requires a
// policy, Get takes no revision.
type (
	putPolicyInput    struct{ resourcePolicyInput }
	getPolicyInput    struct{ resourcePolicyInput }
	deletePolicyInput struct{ resourcePolicyInput }
)

func (in *resourcePolicyInput) checkARN(c *checker) {
	if in.ResourceArn == "" {
		if !c.present("ResourceArn") {
			c.add(showNull, "", "resourceArn", "Member must not be null")
			return
		}
		c.add(showValue, "", "resourceArn", "Member must have length greater than or equal to 1")
	}
	if len(in.ResourceArn) > 1283 {
		c.add(showValue, in.ResourceArn, "resourceArn", "Member must have length less than or equal to 1283")
	}
}

func (in *resourcePolicyInput) checkRevision(c *checker) {
	if r := in.ExpectedRevisionId; r != nil {
		if *r == "" {
			c.add(showValue, "", "expectedRevisionId", "Member must have length greater than or equal to 1")
		} else if len(*r) > 255 {
			c.add(showValue, *r, "expectedRevisionId", "Member must have length less than or equal to 255")
		}
	}
}

func (in *putPolicyInput) validate(c *checker) {
	in.checkARN(c)
	if in.Policy == nil {
		c.add(showNull, "", "policy", "Member must not be null")
	}
	in.checkRevision(c)
}

func (in *getPolicyInput) validate(c *checker) { in.checkARN(c) }

func (in *deletePolicyInput) validate(c *checker) {
	in.checkARN(c)
	in.checkRevision(c)
}

// policyTarget is the resource a policy request names: a table, or one of
// its streams.
type policyTarget struct {
	t *table // nil for the stream of a deleted table
	// arn is the resource's ARN, which keys its policy; what names the
	// resource in messages ("table orders").
	arn, what string
}

// policyResource resolves a policy request's ResourceArn, with DynamoDB's
// errors for what is not a table or stream ARN of this account.
func (e *Engine) policyResource(arn string) (policyTarget, error) {
	invalid := func(format string) error {
		return validationf("One or more parameter values were invalid: "+format, arn)
	}
	if !strings.HasPrefix(arn, "arn:") {
		return policyTarget{}, invalid("ARNs must start with 'arn:': %s")
	}
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) != 6 || parts[1] != "aws" || parts[2] != "dynamodb" || parts[3] == "" {
		return policyTarget{}, invalid("Invalid resource Arn: %s")
	}
	if parts[4] != e.opts.AccountID {
		return policyTarget{}, validationf("This action is only supported by accounts that match the resource owner’s account.")
	}
	res := strings.Split(parts[5], "/")
	if len(res) < 2 || res[0] != "table" || res[1] == "" {
		return policyTarget{}, invalid("Provided Arn is not a DynamoDB resource arn: %s")
	}
	name := res[1]
	switch {
	case len(res) == 2:
		t, err := e.table(name)
		if err != nil {
			return policyTarget{}, newError(CodeResourceNotFound, "Requested resource not found: Table: %s not found", name)
		}
		return policyTarget{t: t, arn: arn, what: "table " + name}, nil
	case len(res) == 4 && res[2] == "stream":
		t, _ := e.table(name)
		e.streamMu.Lock()
		s := e.streams[arn]
		e.streamMu.Unlock()
		if s == nil || s.table != name {
			if t == nil {
				return policyTarget{}, newError(CodeResourceNotFound, "Requested resource not found: Table: %s not found", name)
			}
			return policyTarget{}, newError(CodeResourceNotFound, "Requested resource not found: Stream: %s not found for Table: %s", res[3], name)
		}
		// A deleted table's stream stays readable, and has no policy.
		return policyTarget{t: t, arn: arn, what: "stream " + res[3]}, nil
	case len(res) == 4 && res[2] == "index":
		return policyTarget{}, invalid("Invalid resource arn provided, only table or stream is accepted. Provided resource arn: %s")
	}
	return policyTarget{}, invalid("Provided Arn is not a DynamoDB resource arn: %s")
}

// policyOf returns the target's policy, if it has one. The caller holds
// the table's lock.
func (p policyTarget) policyOf() (resourcePolicy, bool) {
	if p.t == nil {
		return resourcePolicy{}, false
	}
	rp, ok := p.t.policies[p.arn]
	return rp, ok
}

func (p policyTarget) notFound() error {
	return newError(CodePolicyNotFound, "Resource-based policy not found for the provided ResourceArn: %s", p.arn)
}

// checkExpected compares ExpectedRevisionId with the current policy.
func (p policyTarget) checkExpected(expected *string, cur resourcePolicy, has bool) error {
	switch {
	case expected == nil:
		return nil
	case *expected == noPolicy && has:
		return newError(CodePolicyNotFound, "Resource-based policy not found for the provided ResourceArn: Requested policy update expecting none to be present for %s, but a policy exists with revision id %s.", p.what, cur.Revision)
	case *expected == noPolicy:
		return nil
	case !has:
		return p.notFound()
	case *expected != cur.Revision:
		return newError(CodePolicyNotFound, "Resource-based policy not found for the provided ResourceArn: Requested update for policy with revision id %s, but the policy associated to target %s has revision id %s.", *expected, p.what, cur.Revision)
	}
	return nil
}

// checkPolicyDocument applies the documented limits: at most 20 KB, and a
// JSON object (the policy language itself is not checked).
func checkPolicyDocument(doc string) error {
	if len(doc) > maxPolicyBytes {
		return newError(CodeLimitExceeded, "Policy document size %d bytes exceeds the maximum allowed size of %d bytes", len(doc), maxPolicyBytes)
	}
	var v map[string]json.RawMessage
	if err := json.Unmarshal([]byte(doc), &v); err != nil || v == nil {
		return validationf("One or more parameter values were invalid: Invalid policy document: the policy is not a JSON object")
	}
	return nil
}

// nextRevision is a revision id later than prev: the time in milliseconds,
// as DynamoDB's are, moved on when two revisions fall in one millisecond.
func (e *Engine) nextRevision(prev string) string {
	now := e.now().UnixMilli()
	if p, err := strconv.ParseInt(prev, 10, 64); err == nil && now <= p {
		now = p + 1
	}
	return strconv.FormatInt(now, 10)
}

// attachCreatePolicy attaches CreateTable's ResourcePolicy, if any, to the
// table it creates, before the table is visible.
func (t *table) attachCreatePolicy(doc *string, rev string) error {
	if doc == nil {
		return nil
	}
	if err := checkPolicyDocument(*doc); err != nil {
		return err
	}
	t.policies = map[string]resourcePolicy{t.arn: {Document: *doc, Revision: rev}}
	return nil
}

// setPolicy attaches doc to the target, returning its revision; the same
// document again keeps its revision (PutResourcePolicy is idempotent).
func (e *Engine) setPolicy(p policyTarget, doc string, expected *string) (string, error) {
	if p.t == nil {
		return "", newError(CodeResourceNotFound, "Requested resource not found: Table: %s not found", tableOfARN(p.arn))
	}
	var rev string
	var cur resourcePolicy
	var has, changed bool
	err := p.t.locked(func() error {
		cur, has = p.policyOf()
		if err := p.checkExpected(expected, cur, has); err != nil {
			return err
		}
		if has && cur.Document == doc {
			rev = cur.Revision
			return nil
		}
		rev, changed = e.nextRevision(cur.Revision), true
		if p.t.policies == nil {
			p.t.policies = map[string]resourcePolicy{}
		}
		p.t.policies[p.arn] = resourcePolicy{Document: doc, Revision: rev}
		return nil
	})
	if err != nil || !changed {
		return rev, err
	}
	return rev, e.persistPolicy(p, cur, has)
}

// persistPolicy saves the table with its changed policy; when that fails
// the policy the target had before (prev, if it had one) is put back, so a
// failed request leaves no trace.
func (e *Engine) persistPolicy(p policyTarget, prev resourcePolicy, had bool) error {
	err := e.persistTable(p.t)
	if err != nil {
		_ = p.t.locked(func() error {
			if had {
				p.t.policies[p.arn] = prev
			} else {
				delete(p.t.policies, p.arn)
			}
			return nil
		})
	}
	return err
}

func (e *Engine) putResourcePolicy(_ context.Context, in *putPolicyInput) (any, error) {
	if err := checkPolicyDocument(*in.Policy); err != nil {
		return nil, err
	}
	p, err := e.policyResource(in.ResourceArn)
	if err != nil {
		return nil, err
	}
	rev, err := e.setPolicy(p, *in.Policy, in.ExpectedRevisionId)
	if err != nil {
		return nil, err
	}
	return map[string]any{"RevisionId": rev}, nil
}

func (e *Engine) getResourcePolicy(_ context.Context, in *getPolicyInput) (any, error) {
	p, err := e.policyResource(in.ResourceArn)
	if err != nil {
		return nil, err
	}
	var cur resourcePolicy
	var has bool
	if p.t != nil {
		p.t.rlocked(func() { cur, has = p.policyOf() })
	}
	if !has {
		return nil, p.notFound()
	}
	return map[string]any{"Policy": cur.Document, "RevisionId": cur.Revision}, nil
}

func (e *Engine) deleteResourcePolicy(_ context.Context, in *deletePolicyInput) (any, error) {
	p, err := e.policyResource(in.ResourceArn)
	if err != nil {
		return nil, err
	}
	if p.t == nil {
		return nil, p.notFound()
	}
	var rev string
	var deleted resourcePolicy
	err = p.t.locked(func() error {
		cur, has := p.policyOf()
		if !has {
			return p.notFound()
		}
		if err := p.checkExpected(in.ExpectedRevisionId, cur, has); err != nil {
			return err
		}
		delete(p.t.policies, p.arn)
		rev, deleted = cur.Revision, cur
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := e.persistPolicy(p, deleted, true); err != nil {
		return nil, err
	}
	return map[string]any{"RevisionId": rev}, nil
}
