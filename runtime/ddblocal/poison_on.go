//go:build ddblocal_poison

package ddblocal

// poisonReleased is set by the ddblocal_poison build tag (see poison.go).
const poisonReleased = true
