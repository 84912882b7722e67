package service

import (
	"context"

	"manent.dev/manent/deploy"
)

// ReplayCallbacks sends the dead deliveries of a deploy's callbacks again
// (the disabled ones too when disabled is set; deliveryID "" for all of
// them), with their webhook-id. It needs deployment.cancel on the deploy:
// who may stop a deploy may choose what its receivers are told again. An
// unreadable deploy is not found.
func (s *Service) ReplayCallbacks(ctx context.Context, deployID, deliveryID string, disabled bool) (_ []deploy.Delivery, err error) {
	defer func() { s.auditRefused(ctx, "callbacks.replay", deployID, err, map[string]any{"delivery": deliveryID}) }()
	who := deploy.IdentityFrom(ctx)
	d, err := s.Get(ctx, deployID)
	if err != nil {
		return nil, err
	}
	if err := s.require(who, resourceOf(d), deploy.PermCancel); err != nil {
		return nil, err
	}
	if len(d.Descriptor.Callbacks) == 0 {
		return nil, deploy.Errorf(deploy.EUNPROCESSABLE, "deployment %q has no callbacks", deployID)
	}
	out, err := s.engine.ReplayCallbacks(ctx, deployID, deliveryID, disabled)
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, deploy.Errorf(deploy.ECONFLICT, "deployment %q has no dead callback delivery to replay", deployID)
	}
	ids := make([]string, len(out))
	for i, dl := range out {
		ids[i] = dl.ID
	}
	s.audit(ctx, who.Subject, "callbacks.replay", deployID, map[string]any{"deliveries": ids, "disabled": disabled})
	return out, nil
}
