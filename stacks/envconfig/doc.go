// Package envconfig reads the per-environment settings of the oncetable CDK
// app (dev, staging, prod) from the "oncetable:environments" context in
// cdk.json and checks them before any construct is built.
//
// Stacks decide nothing: every setting they pass to a construct comes from a
// Config returned here. A missing required value, an unknown field, a value
// out of range or an unknown environment name is reported as an error that
// wraps ErrUnknownEnvironment or ErrInvalidConfig, with the offending
// environment and field in an *UnknownEnvironmentError or *FieldError, so
// app.go can print one clear line instead of a panic trace.
//
// It is not for runtime (Lambda) configuration, and it imports nothing from
// the CDK, so its tests run without Node.js.
package envconfig
