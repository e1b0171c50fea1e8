/*
 * The Japa entry point. `DB=sqlite|pg|mysql` picks the database the
 * persistence suites talk to (see tests/helpers/database.ts); the pure
 * suites ignore it.
 */

import { assert } from '@japa/assert'
import { fileSystem } from '@japa/file-system'
import { processCLIArgs, configure, run } from '@japa/runner'

processCLIArgs(process.argv.splice(2))

configure({
  suites: [
    { name: 'questions', files: ['tests/questions/**/*.spec.ts'] },
    { name: 'mcp', files: ['tests/mcp/**/*.spec.ts'] },
    { name: 'persistence', files: ['tests/persistence/**/*.spec.ts'] },
    { name: 'configure', files: ['tests/configure/**/*.spec.ts'] },
    { name: 'runtime', files: ['tests/runtime/**/*.spec.ts'] },
  ],
  plugins: [assert(), fileSystem({ basePath: new URL('../tmp/fs/', import.meta.url) })],
  forceExit: true,
})

run()
