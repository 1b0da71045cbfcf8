//go:build race

package ipc

const raceEnabled = true
