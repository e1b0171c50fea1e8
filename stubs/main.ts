/*
 * Where the package's stubs live, for codemods.makeUsingStub, and how the
 * files they write and the codemods' edits are left in the app: as the
 * app's own formatter writes them. The stub engine trims what it renders
 * (no final newline) and ts-morph prints the edits of adonisrc.ts,
 * start/env.ts and tests/bootstrap.ts its own way (long arrays on one line,
 * no trailing commas), which an app linting with prettier (the AdonisJS
 * starter kits' `npm run lint`) reports as errors.
 */

import { readFile, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import type { BaseCommand } from '@adonisjs/core/ace'

export const stubsRoot = import.meta.dirname

type Codemods = Awaited<ReturnType<BaseCommand['createCodemods']>>

/** The two calls of prettier used here */
type Prettier = {
  resolveConfig(file: string): Promise<Record<string, unknown> | null>
  format(source: string, options: Record<string, unknown>): Promise<string>
}

/**
 * The app's own prettier, when it has one (resolved from its root), else
 * null.
 */
function appPrettier(appRoot: string): Prettier | null {
  try {
    return createRequire(`${appRoot}/package.json`)('prettier') as Prettier
  } catch {
    return null
  }
}

/**
 * Leaves each file as the app formats it: through its prettier with its
 * config when it has both, else only ending in a newline. A file prettier
 * cannot parse is left as it was.
 */
export async function formatAppFiles(appRoot: string, files: string[]) {
  const prettier = appPrettier(appRoot)
  for (const file of files) {
    const source = await readFile(file, 'utf8').catch(() => null)
    if (source === null) continue
    let formatted = source.endsWith('\n') ? source : `${source}\n`
    const config = prettier ? await prettier.resolveConfig(file).catch(() => null) : null
    if (prettier && config) {
      formatted = await prettier
        .format(source, { ...config, filepath: file })
        .catch(() => formatted)
    }
    if (formatted !== source) await writeFile(file, formatted)
  }
}

/**
 * codemods.makeUsingStub, then the file it wrote left as the app formats
 * it (`formatAppFiles`).
 */
export async function makeFromStub(
  command: BaseCommand,
  codemods: Codemods,
  root: string,
  stub: string,
  data: Record<string, unknown>
) {
  const output = await codemods.makeUsingStub(root, stub, data)
  if (output.status !== 'skipped')
    await formatAppFiles(command.app.makePath(), [output.destination])
  return output
}
