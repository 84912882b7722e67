// Package mask hides the values of a step's secrets in what the step shows:
// a remote command's stdout and stderr on their way to the deploy log, what
// an HTTP step logs. A secret is recognised as written and in the forms a
// script or a library turns it into without meaning to hide it (base64 at
// any offset, URL-encoded, JSON-escaped); the stream is cut into bounded
// lines, escaped for a terminal, and bounded in all.
//
// It imports deploy and the standard library.
package mask
