package service

import (
	"context"
	"regexp"
	"time"

	"manent.dev/manent/deploy"
)

// maxRolloutText caps a reason or a comment, as approval comments are.
const maxRolloutText = 2048

// PauseRollout asks the running rollout of a deploy to pause after the
// batch in flight (never in the middle of one), before the next batch or
// wave starts. ENOTFOUND, EFORBIDDEN, EUNPROCESSABLE (the reason),
// ECONFLICT (no rollout running, already paused or a request pending).
func (s *Service) PauseRollout(ctx context.Context, id, reason string) (*deploy.Deployment, error) {
	return s.requestRollout(ctx, id, deploy.RolloutActionPause, reason, "")
}

// ResumeRollout resumes a paused rollout: it goes on with what follows the
// pause (the next batch, the next wave), as if the gates that paused it
// had passed; the audit entry keeps what they said. The resume answers
// the pause named ("pause[2/1]", as the status shows it), or the one in
// force now when pause is "": once stored it ends that pause and no other.
// Same errors (ECONFLICT when the rollout is not paused, or paused again
// since the pause named; EUNPROCESSABLE when pause names no pause).
func (s *Service) ResumeRollout(ctx context.Context, id, comment, pause string) (*deploy.Deployment, error) {
	if pause != "" && !pausePattern.MatchString(pause) {
		err := deploy.Errorf(deploy.EUNPROCESSABLE, "pause must name a pause of the rollout as its status gives it (pause[2/1])")
		s.auditRefused(ctx, "deployment.rollout.resume", id, err, nil)
		return nil, err
	}
	return s.requestRollout(ctx, id, deploy.RolloutActionResume, comment, pause)
}

// pausePattern is a pause's name, deploy.PauseName.
var pausePattern = regexp.MustCompile(`^pause\[[1-9][0-9]{0,3}/[1-9][0-9]{0,5}\]$`)

// AbortRollout aborts a rollout at once: in a bake or a pause at once,
// else once the step in flight ended; then the deploy fails and its
// rollback policy compensates the batches done. Same errors.
func (s *Service) AbortRollout(ctx context.Context, id, reason string) (*deploy.Deployment, error) {
	return s.requestRollout(ctx, id, deploy.RolloutActionAbort, reason, "")
}

func (s *Service) requestRollout(ctx context.Context, id string, action deploy.RolloutAction, text, pause string) (_ *deploy.Deployment, err error) {
	defer func() { s.auditRefused(ctx, "deployment.rollout."+string(action), id, err, nil) }()
	who := deploy.IdentityFrom(ctx)
	d, err := s.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := s.require(who, resourceOf(d), deploy.PermRolloutControl); err != nil {
		return nil, err
	}
	field := "reason"
	if action == deploy.RolloutActionResume {
		field = "comment"
	}
	if len(text) > maxRolloutText {
		return nil, deploy.Errorf(deploy.EUNPROCESSABLE, "%s longer than %d characters", field, maxRolloutText)
	}
	// Free text shown in terminals and quoted in the deploy's error.
	if why := deploy.UnsafeText(text, "\n\t"); why != "" {
		return nil, deploy.Errorf(deploy.EUNPROCESSABLE, "%s must be text without control characters (other than new lines and tabs): %s", field, why)
	}
	st := d.RolloutStatus()
	if why := deploy.RolloutRefusal(st, action); why != "" {
		return nil, deploy.Errorf(deploy.ECONFLICT, "deployment %q: %s", d.ID, why)
	}
	if action == deploy.RolloutActionResume {
		// The resume answers the pause the person saw, or the one in force
		// now; the store holds it to that pause under the deploy's lock.
		if pause == "" {
			pause = st.Pause.Step
		}
		if why := deploy.StaleResume(pause, st.Pause.Step); why != "" {
			return nil, deploy.Errorf(deploy.ECONFLICT, "deployment %q: %s", d.ID, why)
		}
	}
	details := map[string]any{field: text}
	if st.CurrentWave != nil {
		details["wave"] = *st.CurrentWave
	}
	if action == deploy.RolloutActionResume && st.Pause != nil {
		// What the person saw when they decided to go on.
		details["pause"], details["pause_reason"] = pause, st.Pause.Reason
		for _, w := range st.Waves {
			if w.State == deploy.WavePaused && w.Gate != nil {
				details["gate"] = w.Gate
			}
		}
	}
	req := deploy.RolloutRequest{Action: action, By: who.Subject, Reason: text, At: time.Now().UTC(), Pause: pause}
	wake := func(tx any) error { return s.engine.RolloutRequested(tx, id) }
	if err := s.store.RequestRollout(ctx, id, req, deploy.RolloutReplaces(action), details, wake); err != nil {
		return nil, err
	}
	return s.Get(ctx, id)
}
