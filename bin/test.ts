/*
 * The Japa entry point. `DB=sqlite|pg|mysql` picks the database the
 * persistence suites talk to (see tests/helpers/database.ts); the pure
 * suites ignore it.
 */

import { register } from 'node:module'
import { assert } from '@japa/assert'
import { apiClient } from '@japa/api-client'
import { fileSystem } from '@japa/file-system'
import { processCLIArgs, configure, run } from '@japa/runner'
import { claimRedisDb } from '../tests/helpers/redis_db.ts'

processCLIArgs(process.argv.splice(2))

// The pages' shared files import one another as an app's bundler does (tests/helpers/stub_imports.mjs)
register('../tests/helpers/stub_imports.mjs', import.meta.url)

/*
 * The port the HTTP suites listen on (tests/helpers/http.ts), picked per
 * process so parallel runs on one machine do not collide, and below
 * Linux's ephemeral range (32768–60999): between two groups, a server
 * listening on port 0 or an outgoing connection could take a port from
 * that range and fail the next group's listen with EADDRINUSE.
 */
process.env.TEST_HTTP_PORT ??= String(21_000 + (process.pid % 4000))

// The queue and live-update suites' Redis database, this run's own (tests/helpers/redis_db.ts)
const releaseRedisDb = await claimRedisDb()

configure({
  suites: [
    { name: 'questions', files: ['tests/questions/**/*.spec.ts'] },
    { name: 'mcp', files: ['tests/mcp/**/*.spec.ts'] },
    { name: 'persistence', files: ['tests/persistence/**/*.spec.ts'] },
    { name: 'inbox', files: ['tests/inbox/**/*.spec.ts'] },
    // The layers of src/ read from its imports (docs/design.md)
    { name: 'layout', files: ['tests/layout/**/*.spec.ts'] },
    { name: 'configure', files: ['tests/configure/**/*.spec.ts'] },
    { name: 'runtime', files: ['tests/runtime/**/*.spec.ts'] },
    { name: 'http', files: ['tests/http/**/*.spec.ts'] },
    // Debian's Chromium against the fixture app (fixtures/app), built by `npm run fixture:build`
    { name: 'browser', files: ['tests/browser/**/*.spec.ts'], timeout: 120_000 },
    { name: 'page', files: ['tests/page/**/*.spec.ts'] },
    // The ace commands, as `node ace` processes on piped stdin and in a pseudo-terminal
    { name: 'commands', files: ['tests/commands/**/*.spec.ts'], timeout: 30_000 },
  ],
  plugins: [
    assert(),
    apiClient({ baseURL: `http://127.0.0.1:${process.env.TEST_HTTP_PORT}` }),
    fileSystem({ basePath: new URL(`../tmp/fs-${process.pid}/`, import.meta.url) }),
  ],
  teardown: [releaseRedisDb],
  forceExit: true,
})

run()
