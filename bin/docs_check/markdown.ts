/*
 * What the docs check reads in a Markdown file, as pure functions of its
 * text: the fenced TypeScript blocks (with the line each starts on), the
 * headings' anchors as GitHub makes them, and the relative links to
 * resolve. No file system here: ./check.ts reads the files and ./compile.ts
 * compiles the blocks.
 */

/** The fence languages compiled; `ts fragment` (any of them) marks a block that is not */
const LANGUAGES = new Set(['ts', 'typescript', 'tsx'])

export const FRAGMENT = 'fragment'

export type CodeBlock = {
  /** The first word of the fence's info string */
  lang: string
  /** The line (1-based) of the block's first line of code */
  line: number
  code: string
  /** Marked `fragment` in its info string: shown, not compiled */
  fragment: boolean
}

export type Link = {
  /** The target as written, e.g. `../guides/the_inbox.md#replies` */
  target: string
  line: number
}

export type Markdown = {
  blocks: CodeBlock[]
  /** The anchors a link may point at: headings' slugs and explicit `<a id>`s */
  anchors: Set<string>
  links: Link[]
}

/**
 * Reads a Markdown file's code blocks, anchors and links; the lines inside
 * fenced blocks hold no heading and no link.
 *
 * @example
 * parseMarkdown('# Hi\n\n```ts\nconst a = 1\n```\n').blocks
 * // [{ lang: 'ts', line: 4, code: 'const a = 1', fragment: false }]
 */
export function parseMarkdown(text: string): Markdown {
  const lines = text.split(/\r?\n/)
  const blocks: CodeBlock[] = []
  const links: Link[] = []
  const anchors = new Set<string>()
  const slugs = slugger()

  let fence: {
    marker: string
    indent: number
    info: string[]
    line: number
    body: string[]
  } | null = null
  lines.forEach((line, at) => {
    if (fence) {
      const close = line.match(/^( {0,3})(`{3,}|~{3,})\s*$/)
      if (close && close[2][0] === fence.marker[0] && close[2].length >= fence.marker.length) {
        const [lang = '', ...meta] = fence.info
        blocks.push({
          lang,
          line: fence.line,
          code: fence.body.join('\n'),
          fragment: meta.includes(FRAGMENT),
        })
        fence = null
      } else {
        fence.body.push(dedent(line, fence.indent))
      }
      return
    }
    const open = line.match(/^( {0,3})(`{3,}|~{3,})\s*([^`]*)$/)
    if (open) {
      const info = open[3].trim().split(/\s+/).filter(Boolean)
      fence = { marker: open[2], indent: open[1].length, info, line: at + 2, body: [] }
      return
    }
    const heading = line.match(/^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/)
    if (heading) anchors.add(slugs(headingText(heading[1])))
    for (const match of line.matchAll(/<a\s[^>]*?\b(?:id|name)=["']([^"']+)["']/g)) {
      anchors.add(match[1])
    }
    for (const target of linkTargets(line)) links.push({ target, line: at + 1 })
  })
  // An unclosed fence runs to the end of the file, as CommonMark reads it
  if (fence !== null) {
    const open: { info: string[]; line: number; body: string[] } = fence
    const [lang = '', ...meta] = open.info
    blocks.push({
      lang,
      line: open.line,
      code: open.body.join('\n'),
      fragment: meta.includes(FRAGMENT),
    })
  }
  return { blocks, anchors, links }
}

/** Whether the docs check compiles a block of this fence language */
export function isTypeScript(block: CodeBlock): boolean {
  return LANGUAGES.has(block.lang.toLowerCase())
}

/** A fenced block's line without the fence's own indentation (up to that many spaces) */
function dedent(line: string, indent: number): string {
  let cut = 0
  while (cut < indent && line[cut] === ' ') cut++
  return line.slice(cut)
}

/**
 * The link targets of a line outside code: inline links and images
 * (`[text](target "title")`) and reference definitions (`[ref]: target`);
 * code spans are left out.
 */
function linkTargets(line: string): string[] {
  const text = line.replace(/(`+)(?:(?!\1).)+?\1/g, (span) => ' '.repeat(span.length))
  const targets: string[] = []
  for (const match of text.matchAll(
    /\]\(\s*(<[^>]*>|[^\s)]+)(?:\s+(?:"[^"]*"|'[^']*'|\([^)]*\)))?\s*\)/g
  )) {
    targets.push(match[1].replace(/^<(.*)>$/, '$1'))
  }
  const definition = text.match(/^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)/)
  if (definition) targets.push(definition[1].replace(/^<(.*)>$/, '$1'))
  return targets
}

/** A heading's text as GitHub renders it: no links' targets, code ticks, emphasis or tags */
function headingText(source: string): string {
  return source
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/`+/g, '')
    .replace(/(^|\W)[*_]{1,3}(?=\S)|(?<=\S)[*_]{1,3}(?=\W|$)/g, '$1')
}

/**
 * GitHub's anchor for a heading's text (github-slugger): lower case, every
 * character but letters, marks, numbers, `_`, `-` and spaces dropped,
 * spaces turned to `-`.
 *
 * @example
 * slug('make:agent and make:tool') // 'makeagent-and-maketool'
 */
export function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-')
}

/** Slugs for one file's headings: a repeated one gets `-1`, `-2`, … as on GitHub */
function slugger() {
  const seen = new Map<string, number>()
  return (text: string) => {
    const base = slug(text)
    let result = base
    while (seen.has(result)) {
      const count = seen.get(base)! + 1
      seen.set(base, count)
      result = `${base}-${count}`
    }
    seen.set(result, 0)
    return result
  }
}

/**
 * A relative link's path and anchor, decoded (`''` for the same file), or
 * null for an external link (any `scheme:` or `//host`), which is not
 * followed.
 *
 * @example
 * splitTarget('../guides/the_inbox.md#replies') // { path: '../guides/the_inbox.md', anchor: 'replies' }
 */
export function splitTarget(target: string): { path: string; anchor: string | null } | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) return null
  const hash = target.indexOf('#')
  const path = decode(hash === -1 ? target : target.slice(0, hash)).replace(/\?.*$/, '')
  return { path, anchor: hash === -1 ? null : decode(target.slice(hash + 1)) }
}

export type LinkProblem = { line: number; message: string }

/**
 * Checks a file's relative links: the file (or folder) each names must
 * exist and, for a Markdown file, hold the anchor after `#`. `resolve`
 * maps a link's path (relative to the linking file) to that file's
 * anchors, to `'exists'` for another existing file or folder, or to null
 * when nothing is there.
 *
 * @example
 * checkLinks(doc, (path) => (path === 'b.md' ? new Set(['intro']) : null))
 */
export function checkLinks(
  doc: Pick<Markdown, 'links' | 'anchors'>,
  resolve: (path: string) => Set<string> | 'exists' | null
): LinkProblem[] {
  const problems: LinkProblem[] = []
  for (const { target, line } of doc.links) {
    const link = splitTarget(target)
    if (!link) continue
    const anchors = link.path === '' ? doc.anchors : resolve(link.path)
    if (anchors === null) {
      problems.push({ line, message: `link to a missing file: ${link.path}` })
    } else if (link.anchor && anchors !== 'exists' && !anchors.has(link.anchor)) {
      problems.push({ line, message: `link to a missing heading: ${target}` })
    }
  }
  return problems
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}
