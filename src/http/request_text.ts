/*
 * What text the package takes from a request into a query or a lookup: no
 * control characters. PostgreSQL refuses a NUL in text (a 500 where the
 * answer is "no such thing"), and the others name nothing a person typed.
 * The history's filters and Transmit's stream ids and channels are read
 * with it.
 */

/** Text without control characters (the empty string included) */
export const PRINTABLE = /^[^\p{Cc}]*$/u
