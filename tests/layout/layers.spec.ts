/*
 * The layers of src/ (docs/design.md §2), read from the code's own import
 * statements: the pure question model stays pure, the inbox knows nothing
 * of HTTP or the runtime, the HTTP side is reached only through the
 * provider and the routes, and no file grows past what a reader can hold.
 */

import { test } from '@japa/runner'
import { readdir, readFile } from 'node:fs/promises'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

type Source = { file: string; lines: number; imports: { target: string; typeOnly: boolean }[] }

async function walk(folder: string): Promise<string[]> {
  const entries = await readdir(join(ROOT, folder), { withFileTypes: true })
  const files: string[] = []
  for (const entry of entries) {
    const path = join(folder, entry.name)
    if (entry.isDirectory()) files.push(...(await walk(path)))
    else if (/\.tsx?$/.test(entry.name)) files.push(path)
  }
  return files
}

/**
 * Every relative import of a file, resolved to a path from the root, and
 * whether it brings types only (erased at run time).
 */
async function read(file: string): Promise<Source> {
  const text = await readFile(join(ROOT, file), 'utf8')
  const imports: Source['imports'] = []
  const pattern =
    /^\s*(import|export)\s+(type\s+)?[^'"]*?from\s+['"](\.[^'"]+)['"]|import\(['"](\.[^'"]+)['"]\)/gm
  for (const match of text.matchAll(pattern)) {
    const specifier = match[3] ?? match[4]
    const target = relative(ROOT, resolve(dirname(join(ROOT, file)), specifier))
    imports.push({ target, typeOnly: Boolean(match[2]) })
  }
  return { file, lines: text.split('\n').length, imports }
}

async function sources(...folders: string[]) {
  const files = await Promise.all(folders.map(walk))
  return Promise.all(files.flat().map(read))
}

function offenders(list: Source[], allowed: (target: string, source: Source) => boolean) {
  return list.flatMap((source) =>
    source.imports
      .filter((item) => !allowed(item.target, source))
      .map((item) => `${source.file} imports ${item.target}`)
  )
}

/** The pages' English words (data that imports nothing but more of it) and how a word is filled */
const PAGE_CATALOGUE = /^src\/i18n\/(catalogue\/pages(_cards)?|interpolate)\.ts$/

test.group('Layers of src/', () => {
  test('the question model imports nothing of the package but errors', async ({ assert }) => {
    const list = await sources('src/questions')
    assert.deepEqual(
      offenders(
        list,
        (target) =>
          target.startsWith('src/questions/') ||
          target === 'src/errors.ts' ||
          // The pages' English words, which the browser entry hands the pages
          PAGE_CATALOGUE.test(target)
      ),
      []
    )
  })

  test('errors depend on nothing of the package but their own base and question types', async ({
    assert,
  }) => {
    const list = await sources('src')
    const errors = list.filter((source) =>
      /^src\/(errors|app_errors|http_facing_exception)\.ts$/.test(source.file)
    )
    assert.deepEqual(
      offenders(errors, (target, source) => {
        // errors.ts re-exports the two others; the app's errors import no base
        if (target === 'src/http_facing_exception.ts') return source.file !== 'src/app_errors.ts'
        if (target === 'src/app_errors.ts') return source.file === 'src/errors.ts'
        // The messages the package ships in French (data) and their filling: both import nothing
        if (target === 'src/i18n/catalogue/errors_fr.ts' || target === 'src/i18n/interpolate.ts') {
          return source.file === 'src/http_facing_exception.ts'
        }
        const item = source.imports.find((entry) => entry.target === target)
        return Boolean(item?.typeOnly) && target.startsWith('src/questions/')
      }),
      []
    )
    const others = list.filter((source) => source.file !== 'src/errors.ts')
    assert.deepEqual(
      offenders(others, (target) => target !== 'src/http_facing_exception.ts'),
      []
    )
  })

  test('the MCP mapping is pure: questions and errors only', async ({ assert }) => {
    const list = await sources('src/mcp')
    assert.deepEqual(
      offenders(
        list,
        (target) => /^src\/(mcp|questions)\//.test(target) || target === 'src/errors.ts'
      ),
      []
    )
  })

  test('the testing kit is imported by nothing in src/, and imports no HTTP', async ({
    assert,
  }) => {
    const list = await sources('src', 'providers', 'commands', 'services')
    const outside = list.filter((source) => !source.file.startsWith('src/testing/'))
    assert.deepEqual(
      offenders(outside, (target) => !target.startsWith('src/testing/')),
      []
    )
    const kit = list.filter((source) => source.file.startsWith('src/testing/'))
    assert.deepEqual(
      offenders(kit, (target) => !/^src\/(http|channels|scale|mcp_client)\//.test(target)),
      []
    )
  })

  test('the MCP client bridge is reached lazily from the runtime, and uses the runtime for types only', async ({
    assert,
  }) => {
    const list = await sources('src', 'providers', 'commands', 'services')
    assert.deepEqual(
      offenders(list, (target, source) => {
        if (!target.startsWith('src/mcp_client/')) return true
        const item = source.imports.find((entry) => entry.target === target)
        return (
          source.file.startsWith('src/mcp_client/') ||
          source.file === 'src/runtime/mcp_tools.ts' ||
          Boolean(item?.typeOnly)
        )
      }),
      []
    )
    const bridge = list.filter((source) => source.file.startsWith('src/mcp_client/'))
    assert.deepEqual(
      offenders(bridge, (target, source) => {
        if (!target.startsWith('src/runtime/')) return !/^src\/(http|channels|scale)\//.test(target)
        return Boolean(source.imports.find((entry) => entry.target === target)?.typeOnly)
      }),
      []
    )
  })

  test('the MCP server is reached only from its routes, the provider and the commands, and never reaches the HTTP side', async ({
    assert,
  }) => {
    const list = await sources('src', 'providers', 'commands', 'services')
    assert.deepEqual(
      offenders(list, (target, source) => {
        if (!target.startsWith('src/mcp_server/')) return true
        const item = source.imports.find((entry) => entry.target === target)
        return (
          source.file.startsWith('src/mcp_server/') ||
          source.file === 'src/define_config.ts' ||
          Boolean(item?.typeOnly)
        )
      }),
      []
    )
    const server = list.filter((source) => source.file.startsWith('src/mcp_server/'))
    assert.deepEqual(
      offenders(
        server,
        (target) => !/^src\/(http|channels|scale|mcp_client|testing)\//.test(target)
      ),
      []
    )
  })

  test('the governance rules are pure: questions and errors only', async ({ assert }) => {
    const list = await sources('src/governance')
    assert.deepEqual(
      offenders(
        list,
        (target) => /^src\/(governance|questions)\//.test(target) || target === 'src/errors.ts'
      ),
      []
    )
  })

  test('notifications never import the HTTP side, the runtime or the scale-out parts', async ({
    assert,
  }) => {
    const list = await sources('src/notify')
    assert.deepEqual(
      offenders(
        list,
        (target) => !/^src\/(http|runtime|channels|scale|mcp_client|testing)\//.test(target)
      ),
      []
    )
  })

  test('the inbox never imports the HTTP side or the runtime', async ({ assert }) => {
    const list = await sources('src/inbox')
    assert.deepEqual(
      offenders(list, (target) => !/^src\/(http|runtime|channels)\//.test(target)),
      []
    )
  })

  test('the scale-out parts are reached only through the provider, the config and the commands', async ({
    assert,
  }) => {
    const list = await sources('src', 'providers', 'commands', 'services')
    assert.deepEqual(
      offenders(list, (target, source) => {
        if (!target.startsWith('src/scale/')) return true
        return /^(src\/scale\/|providers\/|commands\/|src\/define_config\.ts)/.test(source.file)
      }),
      []
    )
    const scale = list.filter((source) => source.file.startsWith('src/scale/'))
    assert.deepEqual(
      offenders(scale, (target) => !/^src\/(http|inbox|channels)\//.test(target)),
      []
    )
  })

  test('nothing imports the HTTP side but the provider, the routes and type surfaces', async ({
    assert,
  }) => {
    const list = await sources('src', 'providers', 'commands', 'services')
    const outside = list.filter((source) => !source.file.startsWith('src/http/'))
    assert.deepEqual(
      offenders(outside, (target, source) => {
        if (!target.startsWith('src/http/')) return true
        if (source.file.startsWith('providers/')) return true
        // Slack's interactivity endpoint is a request handler: it reads who may decide as the routes do
        if (source.file === 'src/slack/slack_interactions.ts') return true
        // Public type surfaces name the access hooks' and live options' types
        const item = source.imports.find((entry) => entry.target === target)
        return Boolean(item?.typeOnly) && /^src\/types\//.test(source.file)
      }),
      []
    )
  })

  test('no file in src/ runs past 350 lines', async ({ assert }) => {
    const list = await sources('src')
    assert.deepEqual(
      list
        .filter((source) => source.lines > 350)
        .map((source) => `${source.file}: ${source.lines}`),
      []
    )
  })
})
