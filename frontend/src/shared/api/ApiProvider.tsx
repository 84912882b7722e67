import { useEffect, useState, type ReactNode } from "react";
import { Provider } from "urql";
import { createApi, type Api } from "./client";
import { ConnectionContext, ConnectionStore } from "./connection";
import { useSession, type Credentials } from "./session";

/**
 * One GraphQL client (and socket) per set of credentials; a new sign-in
 * starts a new one. It is made in an effect, not during render, so that
 * every socket opened is closed again (React may render twice).
 */
export function ApiProvider({ credentials, children }: { credentials: Credentials; children: ReactNode }) {
  const { signOut } = useSession();
  const [connection] = useState(() => new ConnectionStore());
  const [api, setApi] = useState<Api | null>(null);
  useEffect(() => {
    const created = createApi({
      credentials,
      connection,
      onUnauthenticated: () => signOut("The server did not accept your token any more: sign in again."),
    });
    setApi(created);
    return () => created.dispose();
  }, [credentials, connection, signOut]);
  if (!api) return null;
  return (
    <ConnectionContext.Provider value={connection}>
      <Provider value={api.client}>{children}</Provider>
    </ConnectionContext.Provider>
  );
}
