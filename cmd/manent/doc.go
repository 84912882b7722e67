// Command manent is the CLI of manent: it submits deploy descriptors, follows
// deploys live and shows their state, steps, logs and the inventory, with the
// exit codes of DESIGN.md §3 for CI jobs. One file per command,
// <noun>_<verb>.go; errors become messages and exit codes in humanize alone.
//
// It may import client, deploy, internal/oidc/login, cobra, golang.org/x/term,
// yaml and the standard library. The sign-in flows of manent login (which
// talk to the identity provider and keep its tokens) are in
// internal/oidc/login; the CLI talks to the server only through client.
package main
