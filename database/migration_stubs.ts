/*
 * The package's migrations: one stub per change of its tables in
 * database/migrations/, numbered in the order they run. 0001 creates the
 * tables as release 0.1.0 did; each later stub changes them. A released
 * stub is never edited, since an app that already ran it would never see
 * the edit: a change of the schema is a new stub (CONTRIBUTING.md).
 *
 * A stub `NNNN_<name>.stub` publishes `<timestamp>_<name>.ts`, so an app
 * holds a stub's migration when one of its migration files ends with
 * `_<name>.ts`, whatever its timestamp. `node ace configure` publishes the
 * ones it lacks, with timestamps in the stubs' order, after the app's own.
 * File names in, file names out: the I/O is the caller's.
 */

import { readdir } from 'node:fs/promises'

/** A stub's file name: its order (four digits) and the name of what it publishes */
const STUB_FILE = /^(\d{4})_([a-z0-9_]+)\.stub$/

export type MigrationStub = {
  /** The stub's file name in database/migrations/ */
  file: string
  /** Its place in the order the migrations run, from 1 */
  order: number
  /** `<name>` of the `<timestamp>_<name>.ts` it publishes */
  name: string
}

/**
 * The migration stubs among `files` (the names in database/migrations/),
 * in the order they run. A `.stub` not named `NNNN_<name>.stub`, or two of
 * one number, is a mistake of the package's, and throws.
 */
export function migrationStubs(files: string[]): MigrationStub[] {
  const stubs = files
    .filter((file) => file.endsWith('.stub'))
    .map((file) => {
      const match = STUB_FILE.exec(file)
      if (!match) {
        throw new Error(
          `Migration stub "${file}" is not named NNNN_<name>.stub (its order, then what it publishes)`
        )
      }
      return { file, order: Number(match[1]), name: match[2] }
    })
    .sort((a, b) => a.order - b.order)
  stubs.forEach((stub, index) => {
    if (index > 0 && stubs[index - 1].order === stub.order) {
      throw new Error(
        `Migration stubs "${stubs[index - 1].file}" and "${stub.file}" share a number`
      )
    }
  })
  return stubs
}

/**
 * The app's migration file that came from `stub`, if it has one.
 */
export function publishedMigration(stub: MigrationStub, appFiles: string[]): string | undefined {
  return appFiles.find((file) => file.endsWith(`_${stub.name}.ts`))
}

/**
 * The stubs whose migration the app lacks, in order.
 */
export function missingMigrations(stubs: MigrationStub[], appFiles: string[]): MigrationStub[] {
  return stubs.filter((stub) => publishedMigration(stub, appFiles) === undefined)
}

/**
 * The timestamp prefixes of migrations published together: one
 * millisecond apart from `now`, so they sort (and run) in the stubs'
 * order, after every migration the app had.
 */
export function migrationPrefixes(count: number, now = Date.now()): string[] {
  return Array.from({ length: count }, (_, index) => String(now + index))
}

/**
 * The migration stubs in a folder (the package's database/migrations/), in order.
 */
export async function readMigrationStubs(folder: string): Promise<MigrationStub[]> {
  return migrationStubs(await readdir(folder))
}
