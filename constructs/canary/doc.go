// Package canary deploys the payments API's synthetic probe: a Go
// function (lambdas/canary, logic in runtime/canary) that EventBridge
// Scheduler invokes every few minutes (Props.Every, default 5), which
// moves money on a canary user through the API as a caller does (credit,
// order, charge, settle, refund, debit, signed with its role) and records
// oncetable/canary Success 1 or 0. Its alarm (canary-failed) pages when
// 2 of 3 periods had a failed run or no run at all.
//
//	c := canary.New(stack, "Canary", &canary.Props{URL: api.URL,
//		InvokePolicy: api.InvokePolicies[httpapi.RoleOperator], Monitor: ops})
//	api.AddIAMOperator(c.Function.Role.RoleArn())
//
// The role calls the API as an operator: crediting is the back office's.
// It is not for a JWT-only API (no invoke policy), nor a load test.
package canary
