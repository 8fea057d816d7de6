// Package docs checks the project's documentation as a reader meets it:
// README.md, docs/*.md and every doc.go. A page says what is; history goes
// in commit messages and CHANGELOG.md. The test fails on a page that
// cites an issue by its number, names the seed the project grew from, or
// narrates a change (a count with its old value beside it), and on a
// relative link to a file that does not exist.
//
// It is not a spelling or style checker, and it reads neither
// CHANGELOG.md (history is its purpose) nor generated data files.
package docs
