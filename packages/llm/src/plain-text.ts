/** A surrogate half without its partner: not text, and PostgreSQL's UTF-8 refuses it. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
/** C0 controls but tab, line feed and carriage return, and DEL: NUL breaks a text column (PostgreSQL 22021). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g;

/**
 * Text from outside (a model's rationale) made storable: control characters dropped, lone surrogates replaced
 * by U+FFFD, trimmed and cut to `maxLength` UTF-16 units without splitting a surrogate pair.
 */
export function plainText(text: string, maxLength: number): string {
  const clean = text.replace(CONTROL, '').replace(LONE_SURROGATE, '\uFFFD').trim();
  const cut = clean.slice(0, maxLength);
  // A cut through a pair leaves its high half alone at the end: drop it rather than store half a character.
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}
