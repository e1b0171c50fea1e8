/*
 * Runs this repository's TypeScript in Node (`node --import=./bin/ts_hooks.mjs
 * file.ts`): the tests, the processes they start (workers, servers, ace
 * commands, the fixture app), the bench and the repository's scripts.
 * It compiles as `@poppinss/ts-exec` does (SWC, options read off the
 * tsconfig.json of the working directory: legacy decorators and their
 * metadata, as Lucid's models need), with two differences that matter
 * when a test run starts many processes:
 *
 * - its hooks run in the loading thread (`module.registerHooks`), where
 *   ts-exec's run in a hooks thread that every import waits on: an ace
 *   command booted in 1.9 s with ts-exec and 1.3 s with these;
 * - what it compiled is kept under tmp/ts-cache/, by file and source, so
 *   the next process reads it instead of compiling again.
 *
 * The apps the tests build as a user would (the packed tarball's app, the
 * `node ace add` app) keep ts-exec, as a new Adonis app has it. Plain
 * JavaScript: it runs before anything can compile TypeScript.
 */

import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { createRequire, registerHooks } from 'node:module'
import { extname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { getTsconfig } from 'get-tsconfig'

process.setSourceMapsEnabled(true)

const require = createRequire(import.meta.url)
const CACHE = fileURLToPath(new URL('../tmp/ts-cache/', import.meta.url))
mkdirSync(CACHE, { recursive: true })

const options = getTsconfig(process.env.TS_EXEC_PWD ?? process.cwd())?.config.compilerOptions ?? {}

/** SWC's options for a file, as ts-exec derives them from the tsconfig */
function swcOptions(filename) {
  return {
    filename,
    sourceMaps: options.sourceMap ?? true,
    module: { type: 'es6' },
    jsc: {
      target: 'esnext',
      externalHelpers: false,
      parser: {
        syntax: 'typescript',
        tsx: filename.endsWith('x'),
        decorators: true,
        dynamicImport: true,
      },
      transform: {
        ...(options.emitDecoratorMetadata ? { decoratorMetadata: true } : {}),
        ...(options.experimentalDecorators ? { legacyDecorator: true } : {}),
        ...(options.verbatimModuleSyntax ? { verbatimModuleSyntax: true } : {}),
        ...(options.useDefineForClassFields ? { useDefineForClassFields: true } : {}),
        react: {
          runtime: 'automatic',
          ...(options.jsxImportSource ? { importSource: options.jsxImportSource } : {}),
        },
      },
      experimental: { keepImportAttributes: true },
      keepClassNames: true,
    },
  }
}
// What a compiled file depends on besides its own source: the options and SWC's version
const OPTIONS_KEY = JSON.stringify([require('@swc/core/package.json').version, swcOptions('')])

/** SWC itself, loaded on the first file the cache does not hold */
let swc
function compile(url, source) {
  const filename = fileURLToPath(url)
  const key = createHash('sha1')
    .update(`${filename}\0${OPTIONS_KEY}\0`)
    .update(source)
    .digest('hex')
  const cached = `${CACHE}${key}.js`
  try {
    return readFileSync(cached, 'utf8')
  } catch {}
  swc ??= require('@swc/core')
  const { code, map } = swc.transformSync(source, swcOptions(filename))
  const inline = map
    ? `\n//# sourceMappingURL=data:application/json;base64,${Buffer.from(map).toString('base64')}`
    : ''
  const output = `${code}${inline}\n//# sourceURL=${url}`
  // Written aside, then renamed: a process reading it at once sees all of it or nothing
  const partial = `${cached}.${process.pid}`
  writeFileSync(partial, output)
  renameSync(partial, cached)
  return output
}

const isTypeScript = (path) => /\.m?tsx?$/.test(path) && !/\.d\.m?ts$/.test(path)
const isLocal = (specifier) => /^(\.\.?\/|\/|file:)/.test(specifier)

registerHooks({
  /** `./x.js` where only `./x.ts` (or `.tsx`) exists, as TypeScript resolves it */
  resolve(specifier, context, next) {
    try {
      return next(specifier, context)
    } catch (error) {
      const [path, ...query] = specifier.split('?')
      const extension = extname(path)
      if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !isLocal(specifier)) throw error
      if (!['.js', '.mjs', '.cjs', '.jsx'].includes(extension)) throw error
      const tries = [extension.replace('js', 'ts'), ...(extension === '.js' ? ['.tsx'] : [])]
      for (const other of tries) {
        const retry = [path.slice(0, -extension.length) + other, ...query].join('?')
        try {
          return next(retry, context)
        } catch {}
      }
      throw error
    }
  },
  load(url, context, next) {
    if (!url.startsWith('file:') || !isTypeScript(url.split('?')[0])) return next(url, context)
    const { source } = next(url, { ...context, format: 'module' })
    return { format: 'module', source: compile(url, String(source)), shortCircuit: true }
  },
})
