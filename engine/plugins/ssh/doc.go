// Package ssh is the plugin whose targets are logins on hosts reached over
// SSH: deploy uploads the artifact, checks its SHA-256 on the host and
// unpacks it into <path>/releases/<version>, activation switches the
// current symlink atomically and prunes old releases, and their
// checkpoints and rollbacks undo them as the local plugin does. Each step
// works on its targets in parallel, within the bounds of manent.yml's
// plugins.ssh.
//
// It imports deploy, engine/plugins/local (the archive check),
// internal/sshexec and the standard library.
package ssh
