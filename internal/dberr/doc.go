// Package dberr tells an error of PostgreSQL that means "the database could
// not be reached, try again later" from one that retrying cannot change.
//
// It may import the standard library and pgx.
package dberr
