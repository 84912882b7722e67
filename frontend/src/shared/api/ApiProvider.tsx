import { useEffect, useMemo, useState, type ReactNode } from "react";
import { Provider } from "urql";
import { createApi } from "./client";
import { ConnectionContext, ConnectionStore } from "./connection";
import { useSession, type Credentials } from "./session";

/** One GraphQL client (and socket) per set of credentials; a new sign-in starts a new one. */
export function ApiProvider({ credentials, children }: { credentials: Credentials; children: ReactNode }) {
  const { signOut } = useSession();
  const [connection] = useState(() => new ConnectionStore());
  const api = useMemo(
    () =>
      createApi({
        credentials,
        connection,
        onUnauthenticated: () => signOut("The server did not accept your token any more: sign in again."),
      }),
    [credentials, connection, signOut],
  );
  useEffect(() => () => api.dispose(), [api]);
  return (
    <ConnectionContext.Provider value={connection}>
      <Provider value={api.client}>{children}</Provider>
    </ConnectionContext.Provider>
  );
}
