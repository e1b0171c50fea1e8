/*
 * A seeded source of randomness for the fuzz suites (tests/http/reply_fuzz.spec.ts,
 * tests/runtime/model_fuzz.spec.ts). Everything a fuzz test generates comes
 * from one `Fuzz`, so a failure replays exactly with the seed it prints:
 *
 *   FUZZ_SEED=123 DB=sqlite npm test -- --files tests/http/reply_fuzz.spec.ts
 *
 * `FUZZ_SEED=random` picks a fresh seed (printed); sizes are read from env
 * by the suites (`fuzzSize`).
 */

/** The seed when FUZZ_SEED is not set: CI replays the same cases every time */
export const DEFAULT_SEED = 20_260_316

/**
 * The seed of this process: FUZZ_SEED as a number, a random one for
 * `FUZZ_SEED=random`, else DEFAULT_SEED.
 */
export function fuzzSeed(): number {
  const given = process.env.FUZZ_SEED
  if (given === undefined || given === '') return DEFAULT_SEED
  if (given === 'random') return Math.floor(Math.random() * 2 ** 32)
  const seed = Number(given)
  if (!Number.isSafeInteger(seed)) throw new Error(`FUZZ_SEED must be an integer, got "${given}"`)
  return seed >>> 0
}

/**
 * A size read from env (`name`), or the default.
 */
export function fuzzSize(name: string, fallback: number): number {
  const given = process.env[name]
  if (given === undefined || given === '') return fallback
  const size = Number(given)
  if (!Number.isSafeInteger(size) || size < 0) {
    throw new Error(`${name} must be a whole number, got "${given}"`)
  }
  return size
}

/**
 * mulberry32: a tiny 32-bit seeded generator of numbers in [0, 1), plenty
 * for picking test cases and fault schedules.
 */
export function mulberry32(seed: number) {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}

const LETTERS = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-']
const NASTY = ['\u0000', '\u0007', '\n', '\t', ' ', '"', "'", '\\', '<', '>', '%', '/', '?', '#']
const WIDE = ['é', 'ß', 'İ', 'ﬀ', '日本', '🙂', '\u200b', '\u202e', '\ud800', '\udfff', 'ǅ']

/**
 * Seeded picks. Every method draws from the same stream, so the order of
 * calls is part of the case: generate, then act, in a fixed order.
 */
export class Fuzz {
  readonly seed: number
  #next: () => number

  constructor(seed: number) {
    this.seed = seed
    this.#next = mulberry32(seed)
  }

  /** A float in [0, 1) */
  float(): number {
    return this.#next()
  }

  /** An integer in [min, max] */
  int(min: number, max: number): number {
    return min + Math.floor(this.#next() * (max - min + 1))
  }

  /** True with probability `p` */
  chance(p: number): boolean {
    return this.#next() < p
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.#next() * items.length)]
  }

  /** Runs one of the weighted choices: `[[weight, () => value], …]` */
  weighted<T>(choices: readonly (readonly [number, () => T])[]): T {
    const total = choices.reduce((sum, [weight]) => sum + weight, 0)
    let roll = this.#next() * total
    for (const [weight, make] of choices) {
      roll -= weight
      if (roll < 0) return make()
    }
    return choices.at(-1)![1]()
  }

  /** A few distinct items, in a random order */
  sample<T>(items: readonly T[], count: number): T[] {
    const pool = [...items]
    const taken: T[] = []
    while (taken.length < count && pool.length > 0) {
      taken.push(pool.splice(Math.floor(this.#next() * pool.length), 1)[0])
    }
    return taken
  }

  /** A plain word of [A-Za-z0-9_-] */
  word(min = 1, max = 12): string {
    let text = ''
    for (let length = this.int(min, max); text.length < length;) text += this.pick(LETTERS)
    return text
  }

  /**
   * A string that may hold anything a client can send: control characters,
   * NUL, quotes, RTL marks, astral and lone surrogates.
   */
  junkString(max = 40): string {
    let text = ''
    for (let parts = this.int(0, max); parts > 0; parts--) {
      text += this.weighted([
        [6, () => this.pick(LETTERS)],
        [2, () => this.pick(NASTY)],
        [2, () => this.pick(WIDE)],
      ])
    }
    return text
  }

  /** Any JSON value, nested up to `depth` */
  junkValue(depth = 3): unknown {
    return this.weighted<unknown>([
      [2, () => null],
      [2, () => this.chance(0.5)],
      [2, () => this.pick([0, 1, -1, 1.5, 1e308, -0, 2 ** 53 + 1])],
      [3, () => this.junkString(12)],
      [
        depth > 0 ? 1 : 0,
        () => Array.from({ length: this.int(0, 3) }, () => this.junkValue(depth - 1)),
      ],
      [
        depth > 0 ? 1 : 0,
        () =>
          Object.fromEntries(
            Array.from({ length: this.int(0, 3) }, () => [this.word(), this.junkValue(depth - 1)])
          ),
      ],
    ])
  }
}

/**
 * A label for assertion messages, so a failure names its seed and case.
 */
export function caseLabel(fuzz: Fuzz, index: number, detail: unknown): string {
  const shown = typeof detail === 'string' ? detail : JSON.stringify(detail)
  return `FUZZ_SEED=${fuzz.seed} case #${index}: ${String(shown).slice(0, Number(process.env.FUZZ_LABEL ?? 400))}`
}
