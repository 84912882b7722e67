import { useMutation } from "urql";
import { ConfirmedAction } from "./ConfirmedAction";
import { cancelReleaseText } from "./copy";
import { CancelReleaseMutation } from "./queries";

/** Cancel a release, for those the server allows (Release.canCancel); the page follows the result live. */
export function CancelReleaseAction({ id, openDeploys, canCancel }: { id: string; openDeploys: number; canCancel: boolean }) {
  const [, cancel] = useMutation(CancelReleaseMutation);
  if (!canCancel) return null;
  return (
    <ConfirmedAction
      testId="cancel-release"
      label="Cancel release…"
      title="Cancel this release?"
      confirmLabel="Cancel release"
      danger
      text={cancelReleaseText(id, openDeploys)}
      context="Cancelling the release"
      run={() => cancel({ id })}
    />
  );
}
