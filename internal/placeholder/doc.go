// Package placeholder checks and fills the placeholders of custom steps
// ({{ .Version }}, {{ .Params.database }}, {{ index .Outputs "post-test" "key" }}):
// Go template syntax limited to the values of the specification, checked
// against what a step declares when the configuration is loaded, and filled
// at run time for the context the text ends up in (a command's argument, a
// URL, a JSON body, a header value) so that no value can change the shape
// the configuration wrote.
//
// It imports deploy and the standard library.
package placeholder
