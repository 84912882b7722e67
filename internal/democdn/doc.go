// Package democdn is the CDN of the demo that manent-server dev serves: a
// small purge API over TLS on a loopback address, with a certificate
// authority made at every start, for the demo's HTTP step cdn-purge
// (examples/manent.yml). A POST starts a purge, a GET tells how it goes,
// a bearer token guards both, and an Idempotency-Key names each purge so
// that a request sent again starts nothing new.
//
// It imports only the standard library; only server and tests import it.
package democdn
