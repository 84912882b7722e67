// Package chains holds exports and imports between deploys: pure functions
// that check the exports of a succeeded deploy and resolve the imports of
// the next one, reading other deploys only through the Source interface.
//
// It imports deploy and the standard library.
package chains
