//go:build !unix

package login

import "os"

// Without flock, concurrent refreshes are not serialized: the second may
// find its refresh token spent and ask the user to sign in again.
func lockFile(*os.File) error   { return nil }
func unlockFile(*os.File) error { return nil }
