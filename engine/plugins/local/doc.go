// Package local is the plugin whose targets are directories on the worker:
// deploy unpacks the artifact into releases/<version>, activation switches
// the current symlink atomically. It is the demo's and the tests' target.
//
// It imports deploy and the standard library.
package local
