package yamltree

import (
	"fmt"
	"regexp"
	"strconv"

	"manent.dev/manent/deploy"
)

// MaxErrors bounds the problems reported for one document: past it, one more
// entry says the list was cut, so a hostile document cannot produce megabytes
// of errors.
const MaxErrors = 100

// Errors collects the problems of one document.
type Errors struct {
	list []deploy.FieldError
	bad  map[string]bool
	full bool
}

// Add records a problem at path.
func (e *Errors) Add(path, format string, args ...any) {
	if e.bad == nil {
		e.bad = map[string]bool{}
	}
	e.bad[path] = true
	if e.full {
		return
	}
	if len(e.list) == MaxErrors {
		e.full = true
		e.list = append(e.list, deploy.FieldError{Message: fmt.Sprintf("too many errors: only the first %d are shown", MaxErrors)})
		return
	}
	e.list = append(e.list, deploy.FieldError{Path: path, Message: fmt.Sprintf(format, args...)})
}

// AddAll records problems found by another checker.
func (e *Errors) AddAll(fields []deploy.FieldError) {
	for _, f := range fields {
		e.Add(f.Path, "%s", f.Message)
	}
}

// Bad reports whether a problem was already recorded at path, so a checker
// does not add "is required" after "must be a string" for the same field.
func (e *Errors) Bad(path string) bool { return e.bad[path] }

// Len is the number of problems recorded.
func (e *Errors) Len() int { return len(e.list) }

// List returns the problems in the order they were found.
func (e *Errors) List() []deploy.FieldError { return e.list }

var plainKey = regexp.MustCompile(`^[A-Za-z0-9_@./-]+$`)

// Key is the path of a mapping key below parent: parent.key, or
// parent["key"] when the key holds characters that would make it ambiguous.
func Key(parent, key string) string {
	k := key
	if !plainKey.MatchString(key) {
		k = "[" + strconv.Quote(key) + "]"
		if parent == "" {
			return k
		}
		return parent + k
	}
	if parent == "" {
		return k
	}
	return parent + "." + k
}

// Index is the path of a list element below parent.
func Index(parent string, i int) string {
	return parent + "[" + strconv.Itoa(i) + "]"
}
