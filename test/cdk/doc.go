// Package cdk holds the tests that pin oncetable's synthesized CloudFormation:
// golden snapshots of every environment's stack, fine-grained assertions on
// the properties that protect data and wake people up, cdk-nag AwsSolutions
// checks. (Another team's app importing the constructs is test/consumer, a
// module of its own with its own test.)
//
// They live in one package on purpose: jsii starts one Node.js process per
// test binary. Run them through make (make test) so the project's Node.js 22
// is on PATH; refresh the golden templates with
//
//	go test ./test/cdk -update
//
// It has no code of its own outside the tests.
package cdk
