/*
 * The cases of the input gate test (tests/http/input_gate.spec.ts): what
 * each of the package's routes reads of a request (its path params come
 * from the route's pattern; its query values, body fields and headers are
 * listed here by route), the hostile values sent in each, one input at
 * a time, the others left as a valid request has them, and what the docs
 * promise of the answers. Pure: the spec sends them.
 */

/** Where a route reads an input */
export type Place = 'param' | 'query' | 'body' | 'header'

/** What a route reads of a request, beyond the params of its pattern */
export type RouteInputs = {
  query?: string[]
  body?: string[]
  headers?: string[]
  /** Its URL is a signed mail link: the test signs each case's path and query */
  signed?: true
}

/** The package's routes as the router lists them */
export type ListedRoute = { name?: string | null; methods: string[]; pattern: string }

/**
 * What each route of the package reads, by route name, or `METHOD pattern`
 * for Transmit's unnamed routes. A route the app's router lists that is
 * not here (or one here it does not list) fails the test: a new route's
 * inputs are added here, then walked.
 */
export const ROUTE_INPUTS: Record<string, RouteInputs> = {
  'agent_inbox.index': { query: ['limit', 'cursor'], headers: ['x-agent-inbox-runs'] },
  'agent_inbox.settled': { query: ['limit', 'cursor'] },
  'agent_inbox.rows.show': {},
  'agent_inbox.rows.reply': {
    body: ['answers', 'skip', 'approved', 'reason', 'editedInput', 'digest', 'grant'],
  },
  'agent_inbox.bulk': {
    body: ['rowIds', 'digests', 'answers', 'skip', 'approved', 'reason', 'editedInput', 'grant'],
  },
  'agent_inbox.history': {
    query: ['view', 'agent', 'status', 'kind', 'by', 'from', 'to', 'limit', 'cursor'],
  },
  'agent_inbox.runs.show': {},
  'agent_inbox.grants': {},
  'agent_inbox.grants.revoke': {},
  'agent_inbox.mail': { query: ['person', 'action'], signed: true },
  'agent_inbox.mail.confirm': {
    query: ['person', 'action'],
    body: ['digest', 'reason'],
    signed: true,
  },
  'GET /__transmit/events': { query: ['uid'] },
  'POST /__transmit/subscribe': { body: ['uid', 'channel'] },
  'POST /__transmit/unsubscribe': { body: ['uid', 'channel'] },
  'agent_console.index': { query: ['days'] },
  'agent_console.runs.retry': {},
  'agent_console.runs.cancel': {},
  'agent_console.rows.reassign': { body: ['to'] },
  'agent_chat.show': { query: ['agent'] },
  'agent_chat.messages': { body: ['text', 'agent'] },
}

/** A route's key in ROUTE_INPUTS: its name, or its method and pattern (Transmit's) */
export function routeKey(route: ListedRoute): string {
  const method = route.methods.find((name) => name !== 'HEAD') ?? route.methods[0]
  return /^agent_(inbox|console|chat)\./.test(route.name ?? '')
    ? route.name!
    : `${method} ${route.pattern}`
}

/** Whether a route is the package's: the inbox's (and its mail links'), the console's, the chat's or Transmit's */
export function isPackageRoute(route: ListedRoute): boolean {
  return (
    /^agent_(inbox|console|chat)\./.test(route.name ?? '') ||
    route.pattern.startsWith('/__transmit/')
  )
}

/** The params of a route's pattern (`/inbox/rows/:id/reply` → `['id']`) */
export function paramsOf(pattern: string): string[] {
  return [...pattern.matchAll(/:(\w+)/g)].map((match) => match[1])
}

/** Control characters, NUL first; an over-long string; the empty string */
const LONG = 'x'.repeat(10_000)
export const BAD_TEXT = [
  '\u0000',
  'a\u0000b',
  '\u0001\u0002',
  '\u001b[31m',
  '\u007f',
  '\u0085',
  '\r\n',
  LONG,
  '',
]

/** Texts sent as they are, percent-encoded where they travel in a URL */
export type Value =
  | { text: string }
  /** Written into the URL as it is: broken percent-encodings, invalid UTF-8 */
  | { raw: string }
  /** A JSON value other than a string */
  | { json: unknown }
  /** A query key given more than once, or with brackets (`k[]=`, `k[x]=`) */
  | { shape: 'repeated' | 'array' | 'object' | 'bare' }
  /** The id the request names as it should, in capitals */
  | { upper: true }

const TEXTS: Value[] = BAD_TEXT.map((text) => ({ text }))
/** What a URL can carry that no text encodes to */
const RAW: Value[] = [{ raw: '%ZZ' }, { raw: '%E0%A4%A' }, { raw: '%ED%A0%80' }, { raw: '%C0%80' }]
const JSON_TYPES: Value[] = [
  { json: ['a', 'b'] },
  { json: { x: 1 } },
  { json: 5 },
  { json: null },
  { json: true },
  { json: { a: { b: { c: ['\u0000'] } } } },
  { text: '\ud800' },
]
const QUERY_SHAPES: Value[] = [
  { shape: 'repeated' },
  { shape: 'array' },
  { shape: 'object' },
  { shape: 'bare' },
]

/** The values sent in one input, by where it is read */
export function valuesFor(place: Place): Value[] {
  switch (place) {
    case 'param':
      return [
        ...TEXTS.filter((value) => 'text' in value && value.text !== ''),
        ...RAW,
        { upper: true },
      ]
    case 'query':
      return [...TEXTS, ...RAW, ...QUERY_SHAPES]
    case 'body':
      return [...TEXTS, ...JSON_TYPES]
    case 'header':
      // fetch sends no control character in a header: the long and the many
      return [{ text: LONG }, { text: Array.from({ length: 500 }, () => 'a,').join('') }]
  }
}

/** A field no route reads, with each of the values above */
export const UNKNOWN = 'zzz'

/**
 * A query string from entries, the input `name` replaced by `value` (or
 * added, for an unknown one).
 */
export function queryString(
  base: Record<string, string>,
  { name, value }: { name?: string; value?: Value } = {}
) {
  const parts = Object.entries(base)
    .filter(([key]) => key !== name)
    .map(([key, text]) => `${encodeURIComponent(key)}=${encodeURIComponent(text)}`)
  if (name !== undefined && value !== undefined) parts.push(...queryParts(name, value))
  return parts.length ? `?${parts.join('&')}` : ''
}

function queryParts(name: string, value: Value): string[] {
  const key = encodeURIComponent(name)
  if ('text' in value) return [`${key}=${encodeURIComponent(value.text)}`]
  if ('raw' in value) return [`${key}=${value.raw}`]
  if (!('shape' in value)) return [`${key}=${encodeURIComponent(JSON.stringify(value))}`]
  switch (value.shape) {
    case 'repeated':
      return [`${key}=a`, `${key}=b`]
    case 'array':
      return [`${key}[]=a`]
    case 'object':
      return [`${key}[x]=1`]
    case 'bare':
      return [key]
  }
}

/** A path param's segment for a value, `id` the one a valid request names */
export function pathSegment(value: Value, id: string): string {
  if ('raw' in value) return value.raw
  return encodeURIComponent(String(bodyValue(value, id)))
}

/**
 * A body's field (or a signed link's param) for a value, `id` the one a
 * valid request names; a lone surrogate stays one: JSON escapes it.
 */
export function bodyValue(value: Value, id: string): unknown {
  if ('text' in value) return value.text
  if ('json' in value) return value.json
  if ('upper' in value) return id.toUpperCase()
  return 'raw' in value ? value.raw : value.shape
}

/** What a value is, in a failure's message */
export function describe(value: Value): string {
  const shown = JSON.stringify(value)
  return shown.length > 60 ? `${shown.slice(0, 40)}…(${shown.length} chars)` : shown
}

/** Routes whose `:id` names a row, a run or a grant: a malformed one is no such thing */
export const ID_ROUTES = [
  'agent_inbox.rows.show',
  'agent_inbox.rows.reply',
  'agent_inbox.runs.show',
  'agent_inbox.grants.revoke',
]
export type Request = {
  route: ListedRoute
  identity: { who: string; person: string | null }
  place: Place
  name: string
  value: Value
}
export type Answer = Request & { status: number; body: any }
export type Promised = { status: number; code: string; field?: string }

/**
 * What the docs promise a case, where they promise something: a malformed
 * or capitalized id is no such row, run or grant (404; a guest is refused
 * first, 403); a 422 naming the field for a history filter that does not
 * hold (docs/reference/errors.md E_INVALID_QUERY), a reply's field of the
 * wrong type or one a reply does not have, a bulk decision without its
 * list of row ids and their digests (E_INVALID_REPLY), and a stream
 * request without a string uid or channel, or with a control character
 * (E_INVALID_STREAM_REQUEST).
 */
export function promised({ route, identity, place, name, value }: Request): Promised | null {
  const key = routeKey(route)
  const text = 'text' in value ? value.text : undefined
  if (key.startsWith('agent_console.'))
    return consolePromise({ route, identity, place, name, value })
  if (key.startsWith('agent_chat.')) return chatPromise({ route, identity, place, name, value })
  // A path that does not decode is the router's 400, before any route runs
  if (ID_ROUTES.includes(key) && place === 'param' && !('raw' in value)) {
    if (identity.person === null) return { status: 403, code: 'E_FORBIDDEN' }
    return { status: 404, code: 'E_NOT_FOUND' }
  }
  if (key === 'agent_inbox.history' && identity.person !== null) {
    // An empty value is a filter not given, as a form sends it
    const given = text !== undefined ? text !== '' : 'shape' in value && value.shape !== 'bare'
    if (given) return { status: 422, code: 'E_INVALID_QUERY', field: name }
  }
  // A reply is read strictly, field by field, once the row is the sender's (docs: Replies)
  const json = 'json' in value ? value.json : undefined
  const nonScalar = typeof json === 'number' || (typeof json === 'object' && json !== null)
  const replies = key === 'agent_inbox.rows.reply' || key === 'agent_inbox.bulk'
  if (replies && identity.who === 'owner' && place === 'body') {
    const scalar = ['skip', 'approved', 'reason', 'digest', 'grant'].includes(name)
    if (name === UNKNOWN || (scalar && nonScalar)) {
      return { status: 422, code: 'E_INVALID_REPLY', field: name }
    }
  }
  if (key === 'agent_inbox.bulk' && identity.person !== null && place === 'body') {
    const rowIds = name === 'rowIds' && !Array.isArray(json)
    if (rowIds || name === 'digests') return { status: 422, code: 'E_INVALID_REPLY', field: name }
  }
  if (route.pattern.startsWith('/__transmit/') && (name === 'uid' || name === 'channel')) {
    // A lone surrogate is no control character: Transmit takes it or refuses it itself
    const malformed = text !== undefined ? text !== '\ud800' : !('raw' in value)
    if (malformed) return { status: 422, code: 'E_INVALID_STREAM_REQUEST', field: name }
  }
  return null
}

/** Whether an answer keeps the promise: its status, and an entry with the code (and field) */
export function keeps(answer: Answer, promise: Promised) {
  const entries: { code?: string; field?: string }[] = answer.body?.errors ?? []
  return (
    answer.status === promise.status &&
    entries.some(
      (entry) =>
        entry.code === promise.code &&
        (promise.field === undefined || entry.field === promise.field)
    )
  )
}

/**
 * The console's promises: a guest is refused at the door, a person the
 * console's `authorize` does not allow (the gate app's: only the owner)
 * gets E_NOT_AN_OPERATOR whatever they send; the operator's malformed id
 * is a 404, a malformed `days` or `to` a 422 naming it.
 */
function consolePromise({ route, identity, place, name, value }: Request): Promised | null {
  // A path that does not decode is the router's 400, before any route runs
  if (place === 'param' && 'raw' in value) return null
  if (identity.person === null) return { status: 403, code: 'E_FORBIDDEN' }
  if (identity.who !== 'owner') return { status: 403, code: 'E_NOT_AN_OPERATOR' }
  const key = routeKey(route)
  if (place === 'param') return { status: 404, code: 'E_NOT_FOUND' }
  const text = 'text' in value ? value.text : undefined
  if (key === 'agent_console.index' && name === 'days') {
    const given = text !== undefined ? text !== '' : 'shape' in value && value.shape !== 'bare'
    if (given) return { status: 422, code: 'E_INVALID_QUERY', field: name }
  }
  if (key === 'agent_console.rows.reassign' && name === 'to' && place === 'body') {
    return { status: 422, code: 'E_INVALID_REPLY', field: 'to' }
  }
  return null
}

/**
 * The chat's promises: a guest is refused at the door; a malformed chat id
 * is no conversation (one in capitals is another chat: a new one to write
 * to); a message's malformed text or agent, or a field a message does not
 * take, is a 422 naming it for anyone signed in; another person's
 * conversation is none.
 */
function chatPromise({ route, identity, place, name, value }: Request): Promised | null {
  // A path that does not decode is the router's 400, before any route runs
  if (place === 'param' && 'raw' in value) return null
  if (identity.person === null) return { status: 403, code: 'E_FORBIDDEN' }
  const writes = routeKey(route) === 'agent_chat.messages'
  const none = { status: 404, code: 'E_NOT_FOUND' }
  if (place === 'param') return writes && 'upper' in value ? null : none
  if (writes && place === 'body') {
    const text = 'text' in value ? value.text : undefined
    if (name === 'text' && text?.length !== 10_000) {
      return { status: 422, code: 'E_INVALID_MESSAGE', field: name }
    }
    // No agent (a blank one is none: the body parser trims it to null) is the chat's first
    const noAgent = text?.trim() === '' || ('json' in value && value.json === null)
    if (name === UNKNOWN || (name === 'agent' && !noAgent)) {
      return { status: 422, code: 'E_INVALID_MESSAGE', field: name }
    }
  }
  return identity.who === 'owner' ? null : none
}
