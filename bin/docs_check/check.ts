/*
 * The docs check over a tree: README.md, CONTRIBUTING.md and docs/**\/*.md
 * of `root` are read, their relative links resolved on disk
 * (./markdown.ts) and their TypeScript blocks compiled in a scratch app
 * against the package (./scratch_app.ts). bin/docs_check.ts runs it on the
 * repository; its test runs it on fixture trees.
 */

import { glob, readFile, stat } from 'node:fs/promises'
import { dirname, join, relative, resolve } from 'node:path'
import { checkLinks, isTypeScript, parseMarkdown, splitTarget, type Markdown } from './markdown.ts'
import { compileBlocks, type Failure, type SourceBlock } from './scratch_app.ts'

export type { Failure } from './scratch_app.ts'

/** The Markdown files checked, relative to the root */
export const DOCS = ['README.md', 'CONTRIBUTING.md', 'docs/**/*.md']

export type CheckResult = {
  failures: Failure[]
  /** How many files, TypeScript blocks (compiled) and fragments were read */
  files: number
  blocks: number
  fragments: number
}

/**
 * Checks the docs under `root` against the package at `packageRoot`;
 * the failures come sorted by file and line.
 *
 * @example
 * const { failures } = await checkDocs(process.cwd(), process.cwd())
 */
export async function checkDocs(root: string, packageRoot: string): Promise<CheckResult> {
  const found = await Array.fromAsync(glob(DOCS, { cwd: root, exclude: ['**/node_modules/**'] }))
  const files = found.map((file) => file.split('\\').join('/')).sort()
  const parsed = new Map<string, Markdown>()
  for (const file of files) {
    parsed.set(file, parseMarkdown(await readFile(join(root, file), 'utf8')))
  }

  const failures: Failure[] = []
  const blocks: SourceBlock[] = []
  let fragments = 0
  for (const [file, doc] of parsed) {
    const anchorsOf = await resolver(root, file, parsed)
    for (const problem of checkLinks(doc, anchorsOf)) failures.push({ file, ...problem })
    for (const block of doc.blocks.filter(isTypeScript)) {
      if (block.fragment) fragments++
      else blocks.push({ file, line: block.line, code: block.code, lang: block.lang })
    }
  }
  failures.push(...(await compileBlocks(blocks, packageRoot)))
  failures.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line)
  return { failures, files: files.length, blocks: blocks.length, fragments }
}

/**
 * What a relative link from `file` finds: a Markdown file's anchors
 * (parsed already when it is one of the checked files), `'exists'` for
 * any other file or folder, or null. Resolved up front, as checkLinks is
 * pure and synchronous.
 */
async function resolver(root: string, file: string, parsed: Map<string, Markdown>) {
  const doc = parsed.get(file)!
  const found = new Map<string, Set<string> | 'exists' | null>()
  for (const { target } of doc.links) {
    const path = splitTarget(target)?.path
    if (!path || found.has(path)) continue
    const absolute = resolve(root, dirname(file), path)
    const key = relative(root, absolute).split('\\').join('/')
    if (parsed.has(key)) found.set(path, parsed.get(key)!.anchors)
    else if (await exists(absolute)) {
      found.set(
        path,
        absolute.endsWith('.md')
          ? parseMarkdown(await readFile(absolute, 'utf8')).anchors
          : 'exists'
      )
    } else found.set(path, null)
  }
  return (path: string) => found.get(path) ?? null
}

async function exists(path: string) {
  return stat(path).then(
    () => true,
    () => false
  )
}
