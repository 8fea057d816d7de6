// Package readme checks the README's walkthrough against a live local
// runner, so that the README cannot drift from the code.
//
// The test builds lambdas/local (what `make run` runs), starts it on free
// ports, and runs every `$ curl …` command of the README's text blocks in
// order, against the runner, with the real curl. Each command's output
// must match the one printed under it in the README once the values that
// differ from run to run are named: generated ids, timestamps, request ids,
// Date and Content-Length. A value named in one place must be the same
// wherever it appears again (the payment id of the charge is the one the
// settle returns). JSON bodies are compared as JSON; the banner under
// `$ make run` is compared with the runner's.
//
// It is not for the AWS CLI commands of the README (no AWS CLI is
// installed here), nor for the log lines it quotes.
package readme
