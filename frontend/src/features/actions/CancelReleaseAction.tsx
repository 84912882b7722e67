import { useMutation } from "urql";
import { ConfirmedAction } from "./ConfirmedAction";
import { cancelReleaseText } from "./copy";
import { CancelReleaseMutation } from "./queries";

/** Cancel a release, for those the server allows (Release.canCancel); the page follows the result live. */
export function CancelReleaseAction({ id, openDeploys, canCancel }: { id: string; openDeploys: number; canCancel: boolean }) {
  const [result, cancel] = useMutation(CancelReleaseMutation);
  // The release is CANCELLED (and pushed so) before its deploys are: the
  // dialog stays until the server answered, when they are cancelled too.
  if (!canCancel && !result.fetching) return null;
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
