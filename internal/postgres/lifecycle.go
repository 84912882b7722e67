package postgres

import "manent.dev/manent/deploy"

// guard lists the states a deploy may be in for a move to to: those the
// lifecycle allows and, for a state that is not final, to itself, since the
// step that moves it may run again after a crash and must then find the
// move done. A final state is never entered twice.
func guard(to deploy.State) []string {
	var out []string
	if !to.Terminal() {
		out = append(out, string(to))
	}
	for _, s := range deploy.EnteredFrom(to) {
		out = append(out, string(s))
	}
	return out
}
