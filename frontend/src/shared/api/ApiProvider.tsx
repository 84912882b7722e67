import { useEffect, useState, type ReactNode } from "react";
import { Provider } from "urql";
import { createApi, type Api } from "./client";
import { ConnectionContext, ConnectionStore } from "./connection";
import { useSession } from "./session";

/**
 * One GraphQL client (and socket) per signed-in identity; a new sign-in
 * starts a new one (the caller keys it by the identity). It is made in an
 * effect, not during render, so that every socket opened is closed again
 * (React may render twice).
 */
export function ApiProvider({ children }: { children: ReactNode }) {
  const { signOut } = useSession();
  const [connection] = useState(() => new ConnectionStore());
  const [api, setApi] = useState<Api | null>(null);
  useEffect(() => {
    const created = createApi({
      connection,
      onUnauthenticated: () => void signOut({ reason: "Your session ended (it expired, or you signed out elsewhere): sign in again." }),
    });
    setApi(created);
    return () => created.dispose();
  }, [connection, signOut]);
  if (!api) return null;
  return (
    <ConnectionContext.Provider value={connection}>
      <Provider value={api.client}>{children}</Provider>
    </ConnectionContext.Provider>
  );
}
