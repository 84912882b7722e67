// Package bench measures manent against bare DBOS and against itself, side
// by side in one run, and reports ratios (`make bench`); it holds no tests and
// asserts no timing, so `make test` compiles it and runs nothing slow.
//
// Its benchmarks may import every package of the module, DBOS and the standard library.
package bench
