// Package migrations holds the SQL migrations of the manent schema, embedded,
// and Migrate, which applies them; DBOS migrates its own schema.
//
// It imports bun and the standard library.
package migrations
