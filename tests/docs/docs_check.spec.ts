/*
 * `npm run docs:check` (bin/docs_check.ts) on fixture trees: a good doc
 * passes, with its marked fragment left alone; a broken block fails at
 * the Markdown line of the error, as do a link to a missing file, a link
 * to a missing heading, a block reaching past the package's exports and
 * an unmarked fragment. The Markdown reading (fences, GitHub's anchors,
 * links outside code) is checked on its own, as pure functions.
 */

import { test } from '@japa/runner'
import { checkLinks, parseMarkdown, slug } from '../../bin/docs_check/markdown.ts'
import { runNode } from '../helpers/ace.ts'
import { TS_HOOKS } from '../../fixtures/app/bin/launch.ts'

/**
 * A bound against a wedge, within the suite's 120 s (tests/plan/plan.ts):
 * one TypeScript program over the scratch app, ~10 s idle, 30 s loaded
 */
const CHECK_TIMEOUT = 110_000

const docsCheck = (root: string) =>
  runNode([TS_HOOKS, 'bin/docs_check.ts', root], { timeout: CHECK_TIMEOUT })

const fence = (info: string, ...code: string[]) => ['```' + info, ...code, '```'].join('\n')

/** A block that compiles against the package's public exports */
const GOOD_BLOCK = fence(
  'ts',
  "import { defineConfig } from 'adonis-agent-inbox'",
  "import agents from 'adonis-agent-inbox/services/main'",
  '',
  'export default defineConfig({ limits: { maxQuestions: 3 } })',
  "const run = await agents.start('deployer', { input: 'Ship it', owner: 'user:1' })",
  'console.log(run.id)'
)

/** A piece of a config object: not TypeScript alone */
const FRAGMENT_CODE = ['live: {', '  alsoNotify: async () => [],', '},']

test.group('docs:check on fixture docs', () => {
  test('passes a good doc, and leaves a marked fragment uncompiled', async ({ assert, fs }) => {
    await fs.create(
      'good/README.md',
      [
        '# A package',
        '',
        'See [the guide](docs/guide.md), [its set-up](docs/guide.md#set-up-with-makeagent),',
        '[the second Notes](docs/guide.md#notes-1), [this page](#a-package), a [folder](docs/)',
        'and [the site](https://example.com/missing.md).',
        '',
        GOOD_BLOCK,
        '',
        fence('ts fragment', ...FRAGMENT_CODE),
        '',
        fence('sh', '# a comment, not a heading', 'npm test'),
      ].join('\n')
    )
    await fs.create(
      'good/docs/guide.md',
      ['# Guide', '## Set up, with `make:agent`', '## Notes', '## Notes', ''].join('\n')
    )

    const exit = await docsCheck(fs.basePath + '/good')

    assert.equal(exit.code, 0, exit.output)
    assert.include(
      exit.output,
      'docs:check: 2 files, 1 TypeScript blocks compiled, 1 fragments, 0 failures'
    )
  })

  test('fails at file:line on a broken block, a missing file and a missing heading', async ({
    assert,
    fs,
  }) => {
    await fs.create('broken/README.md', ['# Broken', '', GOOD_BLOCK, ''].join('\n'))
    await fs.create(
      'broken/docs/guides/page.md',
      [
        '# Page', // 1
        '', // 2
        'Back to [the README](../../README.md#broken).', // 3: fine
        'A [missing file](../reference/nope.md) and', // 4
        'a [missing heading](../../README.md#install).', // 5
        'Here: [nothing](#no-such-heading).', // 6
        '', // 7
        '```ts', // 8
        "import agents from 'adonis-agent-inbox/services/main'", // 9
        '', // 10
        "await agents.startRun('deployer', { owner: 'user:1' })", // 11: no such method
        '```', // 12
        '', // 13
        '```typescript', // 14
        "import { Agents } from 'adonis-agent-inbox/src/runtime/agents.ts'", // 15: not exported
        'export type A = Agents', // 16
        '```', // 17
        '', // 18
        fence('ts', ...FRAGMENT_CODE), // 19-23: a fragment, unmarked
      ].join('\n')
    )

    const exit = await docsCheck(fs.basePath + '/broken')

    assert.equal(exit.code, 1, exit.output)
    const failures = exit.output.split('\n').filter((line) => /^\S+\.md:\d+: /.test(line))
    const where = failures.map((line) => line.split(': ')[0])
    assert.includeMembers(where, [
      'docs/guides/page.md:4',
      'docs/guides/page.md:5',
      'docs/guides/page.md:6',
      'docs/guides/page.md:11',
      'docs/guides/page.md:15',
    ])
    assert.isTrue(
      where.some((at) => /^docs\/guides\/page\.md:2[0-2]$/.test(at)),
      'the unmarked fragment fails where it is'
    )
    assert.notInclude(where.join(' '), 'README.md', 'the README and its good block pass')
    assert.notInclude(where, 'docs/guides/page.md:3')
    assert.include(failures, 'docs/guides/page.md:4: link to a missing file: ../reference/nope.md')
    assert.include(
      failures,
      'docs/guides/page.md:5: link to a missing heading: ../../README.md#install'
    )
    assert.include(failures, 'docs/guides/page.md:6: link to a missing heading: #no-such-heading')
    assert.include(
      failures,
      "docs/guides/page.md:11: TS2339: Property 'startRun' does not exist on type 'Agents'."
    )
    assert.match(
      failures.find((line) => line.startsWith('docs/guides/page.md:15:'))!,
      /TS2307: Cannot find module 'adonis-agent-inbox\/src\/runtime\/agents\.ts'/
    )
    assert.include(exit.output, '4 TypeScript blocks compiled, 0 fragments')
  })
})

test.group('docs:check reading Markdown', () => {
  test('GitHub anchors: punctuation dropped, spaces to dashes, repeats numbered', ({ assert }) => {
    assert.equal(slug('make:agent and make:tool'), 'makeagent-and-maketool')
    assert.equal(slug('What "durable" means here'), 'what-durable-means-here')
    assert.equal(
      slug('5.4 Exactly once: transactional actions'),
      '54-exactly-once-transactional-actions'
    )
    assert.equal(slug('agents_and_tools — the guide'), 'agents_and_tools--the-guide')
    assert.equal(slug('Réponses'), 'réponses')

    const doc = parseMarkdown(
      ['# The `inbox`', '## Notes', '## Notes', '## [Linked](x.md) *title*', ''].join('\n')
    )
    assert.sameMembers([...doc.anchors], ['the-inbox', 'notes', 'notes-1', 'linked-title'])
  })

  test('code blocks: their fence, first line and marker; nothing inside is a heading or link', ({
    assert,
  }) => {
    const doc = parseMarkdown(
      [
        '# Title', // 1
        '```ts', // 2
        'const a = 1', // 3
        '```', // 4
        '- a list item:', // 5
        '', // 6
        '  ~~~tsx fragment', // 7
        '  <div />', // 8
        '  # not a heading [nor a link](nope.md)', // 9
        '  ~~~', // 10
        '````md', // 11
        '```ts', // 12
        '````', // 13
        'A `[code span](nope.md)` and a [link](yes.md "title").', // 14
        '[ref]: <ref.md>', // 15
      ].join('\n')
    )

    assert.deepEqual(doc.blocks, [
      { lang: 'ts', line: 3, code: 'const a = 1', fragment: false },
      {
        lang: 'tsx',
        line: 8,
        code: '<div />\n# not a heading [nor a link](nope.md)',
        fragment: true,
      },
      { lang: 'md', line: 12, code: '```ts', fragment: false },
    ])
    assert.deepEqual([...doc.anchors], ['title'])
    assert.deepEqual(doc.links, [
      { target: 'yes.md', line: 14 },
      { target: 'ref.md', line: 15 },
    ])
  })

  test('links: external ones are not followed; a file must exist, an anchor be in it', ({
    assert,
  }) => {
    const doc = parseMarkdown(
      [
        '# Here',
        '[a](https://example.com/x.md#y) [b](mailto:a@b.c) [c](//cdn.example.com/x)',
        '[d](#here) [e](#there)',
        '[f](other.md#intro) [g](other.md#outro) [h](gone.md) [i](image.png#frag)',
        '[j](other%20page.md)',
      ].join('\n')
    )
    const resolved: string[] = []
    const problems = checkLinks(doc, (path) => {
      resolved.push(path)
      if (path === 'other.md' || path === 'other page.md') return new Set(['intro'])
      if (path === 'image.png') return 'exists'
      return null
    })

    assert.deepEqual(problems, [
      { line: 3, message: 'link to a missing heading: #there' },
      { line: 4, message: 'link to a missing heading: other.md#outro' },
      { line: 4, message: 'link to a missing file: gone.md' },
    ])
    assert.notInclude(resolved.join(' '), 'example.com')
  })
})
