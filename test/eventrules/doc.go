// Package eventrules tests every EventBridge rule the stacks create
// against AWS's published sample events (testdata/events). It reads the
// rules from the snapshot templates of test/cdk (test/cdk/testdata), which
// TestSnapshots holds equal to what synthesis produces, so it needs no CDK
// and no Node.js.
//
// The matcher is its own (Pattern, in pattern.go): quamina, the
// well-kept Go matcher of EventBridge patterns, is not served by the Go
// module proxy these machines reach. Pattern implements the pattern
// language as the EventBridge User Guide documents it, refuses any
// operator it does not know, and TestPatternLanguage checks it case by
// case against the guide's own examples.
package eventrules
