// Package machine describes the machine a measurement ran on, for the
// reports that benchmarks and demos write: one line with the command, the
// date and the machine, so a figure can be judged and reproduced.
//
// It is for test programs only (benchmarks, soaks, demos), not for the
// runtime.
package machine
