// @ts-check
// Waiting helpers: every wait has a generous deadline (a loaded 2-core
// machine) and waits on what the page shows, never on a fixed sleep.

/**
 * Waits until fn returns a truthy value and returns it.
 * @template T
 * @param {() => Promise<T> | T} fn
 * @param {{timeout?: number, message?: string}} [opts]
 * @returns {Promise<T>}
 */
export async function eventually(fn, { timeout = 30_000, message = "condition" } = {}) {
  const deadline = Date.now() + timeout;
  let last;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
      last = v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeout} ms waiting for ${message} (last: ${last})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
