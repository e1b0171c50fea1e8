/*
 * What a suite's groups share instead of each starting its own: a
 * Chromium, a fixture app (tests/helpers/inbox_browser.ts). Each is
 * started by the first group that asks and stopped when the suite ends,
 * by the teardown bin/test.ts gives every suite: stopping them is async
 * (a child process to wait for), which a process `exit` listener cannot
 * do, and a suite's end rather than the process's keeps them from
 * lingering beside the suites run after it in the same process.
 */

type Entry = { started: Promise<unknown>; stop: () => Promise<unknown> }

const entries = new Map<string, Entry>()

/**
 * The resource named `key`, started with `start` on the first call and
 * the same one on later calls, until the suite ends; `stop` then ends it.
 * A start that fails is forgotten, so the next group tries again (and
 * fails with its own error) rather than reusing the rejection.
 *
 * @example
 * const browser = await suiteShared('chromium', launchBrowser, (it) => it.close())
 */
export function suiteShared<T>(
  key: string,
  start: () => Promise<T>,
  stop: (resource: T) => Promise<unknown>
): Promise<T> {
  const found = entries.get(key)
  if (found) return found.started as Promise<T>
  const started = start()
  entries.set(key, { started, stop: () => started.then(stop, () => undefined) })
  started.catch(() => entries.get(key)?.started === started && entries.delete(key))
  return started
}

/**
 * Stops every shared resource, the last started first; fails with the
 * first error once all are stopped. bin/test.ts runs it as each suite's
 * teardown.
 */
export async function stopSuiteShared() {
  const stopping = [...entries.values()].reverse()
  entries.clear()
  const errors: unknown[] = []
  for (const entry of stopping) {
    await entry.stop().catch((error) => errors.push(error))
  }
  if (errors.length > 0) throw errors[0]
}
