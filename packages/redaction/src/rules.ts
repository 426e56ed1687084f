/**
 * The built-in redaction rules. Each is a global regex, a typed placeholder, and where a regex alone
 * would over-match, a check on the match (Luhn for cards, mod 97 for IBANs, a digit count for
 * phones). They run in this order: secrets before anything numeric (a token may contain digits),
 * cards before phones (a card number is also a long run of digits).
 */

export interface RedactionRule {
  /** Named in `REDACTION_RULES` and in the counts a redaction returns. */
  name: string;
  /** Global (`g`) regex of a candidate. */
  pattern: RegExp;
  /** What replaces an accepted match, e.g. `[email]`. */
  placeholder: string;
  /** Keeps a candidate only when it really is one (a checksum, a length). */
  accept?: (match: string) => boolean;
  /**
   * A cheap test no text with a match can fail (an `@` for an address): texts without it skip the
   * regex. Most text a RAG handles has no personal data; this is what keeps redaction cheap.
   */
  requires?: (text: string) => boolean;
}

const hasDigit = (text: string) => /\d/.test(text);

const digitsOf = (text: string) => text.replace(/\D/g, '');

/** The Luhn checksum every payment card number satisfies (ISO/IEC 7812). */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i += 1) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return digits.length > 0 && sum % 10 === 0;
}

/** ISO 13616 check: move the first four characters to the end, letters to 10..35, the number mod 97 is 1. */
export function ibanValid(candidate: string): boolean {
  const iban = candidate.replace(/\s/g, '').toUpperCase();
  if (iban.length < 15 || iban.length > 34) return false;
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let remainder = 0;
  for (const char of rearranged) {
    const value = /[A-Z]/.test(char) ? char.charCodeAt(0) - 55 : Number(char);
    remainder = Number(`${remainder}${value}`) % 97;
  }
  return remainder === 1;
}

export const DEFAULT_RULES: readonly RedactionRule[] = [
  {
    name: 'private_key',
    requires: (text) => text.includes('-----BEGIN'),
    pattern: /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
    placeholder: '[secret]',
  },
  {
    // JSON Web Tokens: three base64url parts, the first a JSON header ("eyJ" is `{"`).
    name: 'jwt',
    requires: (text) => text.includes('eyJ'),
    pattern: /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}/g,
    placeholder: '[token]',
  },
  {
    name: 'bearer',
    pattern: /\b(?:Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{16,}/gi,
    placeholder: '[token]',
  },
  {
    // Prefixed keys of well-known providers: OpenAI/Anthropic (sk-…), GitHub (ghp_…, github_pat_…),
    // Slack (xox…-), AWS access key ids (AKIA…/ASIA…), Google API keys (AIza…), Stripe (sk_live_…).
    name: 'api_key',
    pattern:
      /\b(?:sk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,}|xox[abposr]-[A-Za-z0-9-]{10,}|(?:AKIA|ASIA)[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{35}|[rs]k_(?:live|test)_[A-Za-z0-9]{16,})\b/g,
    placeholder: '[token]',
  },
  {
    // `password=…`, `api_key: …`, `secret …`: the value after a word that says what it is.
    name: 'secret_assignment',
    pattern:
      /\b(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret)\b\s*[:=]\s*["']?[^\s"',;]{6,}/gi,
    placeholder: '[secret]',
  },
  {
    name: 'email',
    requires: (text) => text.includes('@'),
    pattern: /\b[A-Za-z0-9._%+-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\.[A-Za-z]{2,}\b/g,
    placeholder: '[email]',
  },
  {
    name: 'iban',
    requires: hasDigit,
    pattern: /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b/g,
    placeholder: '[iban]',
    accept: ibanValid,
  },
  {
    // 13 to 19 digits, spaces or dashes between groups, passing Luhn.
    name: 'card',
    requires: hasDigit,
    pattern: /(?<![\d.])\d(?:[ -]?\d){12,18}(?![\d.])/g,
    placeholder: '[card]',
    accept: (match) => luhnValid(digitsOf(match)),
  },
  {
    // International (+CC …), national with a leading 0 or an area code in parentheses, and NANP
    // 555-123-4567; 8 to 15 digits (E.164). Dates (2024-06-01) and versions (3.0.13) have neither a
    // + nor a leading 0 group of this shape, nor enough digits.
    name: 'phone',
    requires: hasDigit,
    pattern:
      /(?<![\w+.-])(?:\+\d{1,3}[ .-]?(?:\(\d{1,4}\)[ .-]?)?\d{1,4}(?:[ .-]?\d{1,4}){1,5}|\(\d{2,4}\)[ .-]?\d{2,4}(?:[ .-]?\d{2,4}){1,3}|0\d{1,4}(?:[ .-]?\d{2,4}){2,4}|\d{3}[.-]\d{3}[.-]\d{4})(?![\w.-]*\d)/g,
    placeholder: '[phone]',
    accept: (match) => {
      const count = digitsOf(match).length;
      return count >= 8 && count <= 15;
    },
  },
  {
    // Off by default (not in DEFAULT_RULE_NAMES): four-part versions (1.2.3.4) look the same.
    name: 'ipv4',
    requires: (text) => text.includes('.'),
    pattern: /\b(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\b/g,
    placeholder: '[ip]',
  },
];

/** The rules on when `REDACTION_RULES` is not set: all but ipv4. */
export const DEFAULT_RULE_NAMES: readonly string[] = DEFAULT_RULES.map((rule) => rule.name).filter((name) => name !== 'ipv4');
