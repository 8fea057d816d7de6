// Package stacks wires the oncetable constructs into one CloudFormation stack
// per environment. A stack decides nothing: every setting comes from the
// environment's envconfig.Config, and names and ARNs reach handlers as
// environment variables.
//
// It is not a construct library: other CDK apps import constructs/... instead.
package stacks
