/** The most characters of a deploy ID (descriptor rules: a-z, 0-9, '.', '_', '@' and -, 128 at most). */
const maxDeployId = 128;

/** Eight hexadecimal digits of the browser's secure random source. */
export function requestKey(): string {
  const bytes = new Uint8Array(4);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * The ID of the deploy an action starts, "<application>-<environment>-<key>" as
 * the server names the deploys it names itself. The key is chosen when the
 * action's dialog opens and every try of that dialog sends the same ID: a retry
 * after a lost answer is the same request again, which the server answers with
 * the deploy the first one started, never a second deploy.
 */
export function newDeployId(application: string, environment: string, key: string): string {
  const prefix = `${application}-${environment}`.slice(0, maxDeployId - key.length - 1);
  return `${prefix}-${key}`;
}
