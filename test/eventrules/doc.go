// Package eventrules tests every EventBridge rule the stacks create
// against AWS's published sample events (testdata/events), with quamina,
// a matcher of EventBridge's pattern language, instead of a hand-written
// one. It reads the rules from the snapshot templates of test/cdk
// (test/cdk/testdata), which TestSnapshots holds equal to what synthesis
// produces, so it needs no CDK and no Node.js.
//
// It is a module of its own (go.mod) so that quamina, vendored under
// third_party because the Go module proxy does not serve it, is no
// requirement of oncetable's module: another team's go.mod that requires
// oncetable never meets it. make test runs it.
package eventrules
