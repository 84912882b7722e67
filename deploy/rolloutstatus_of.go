package deploy

// RolloutStatus is where d's rollout stands, built from its plan and its
// step records; nil for a deploy without rollout. The engine fills it: until
// it runs rollouts, no deploy has one to show.
func (d Deployment) RolloutStatus() *RolloutStatus {
	return nil
}
