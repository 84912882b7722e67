// Package metrics is what manent-server shows Prometheus: one registry per
// server (two servers in one test never share a series), the counters and
// histograms the HTTP layer, the database pools and the engine's record of
// steps feed, and the figures read from PostgreSQL at scrape time (deploys
// by state, DBOS's queues), cached so scrapes cannot hammer the database.
// Every label is bounded: states, step names of the standard steps, kinds,
// queues, route patterns, status classes; never a deploy ID, a tenant or a
// target.
//
// It imports deploy, internal/dberr, prometheus,
// pgx, bun and the standard library.
package metrics
