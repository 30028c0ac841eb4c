// Look-alike letters: text that reads as English to a person (and a model) but is spelled with letters of
// other scripts, so that a pattern looking for "before", "read" or "~/.ssh" does not see it ("Bеfore" with
// a Cyrillic е). `skeleton` maps the common confusables onto the Latin letters they imitate, after Unicode
// NFKC (which already folds fullwidth and mathematical letters: ｒｅａｄ, 𝐫𝐞𝐚𝐝) and with invisible
// characters removed; `mixedScriptWords` finds the words that mix Latin with such letters.
//
// The table is the Cyrillic, Greek, Armenian, Cherokee and Latin-extension part of Unicode's confusables.txt
// whose prototype is one ASCII letter, written out here (no network, no data file): a compact subset, the
// letters attackers use, not every entry. Pure functions, linear in the text.

/** Zero-width, joiners, bidi controls, word joiner and invisible operators, BOM, soft hyphen, Mongolian vowel separator, Unicode tags, variation selectors. */
export const INVISIBLE_CHARS = /[\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF\u00AD\u180E\u034F\uFE00-\uFE0F\u{E0000}-\u{E007F}\u{E0100}-\u{E01EF}]/gu;

// Pairs: look-alike letters, then the ASCII letters they imitate, position by position.
const PAIRS: ReadonlyArray<readonly [string, string]> = [
  // Cyrillic lower case
  ['аеорсухіјѕԁһӏԛԝүѵ', 'aeopcyxijsdhlqwyv'],
  // Cyrillic upper case
  ['АВЕКМНОРСТХУІЈЅԌԚԜҮѴӀЗ', 'ABEKMHOPCTXYIJSGQWYVI3'],
  // Greek lower case
  ['αοριυνκχγ', 'aopiuvkxy'],
  // Greek upper case
  ['ΑΒΕΖΗΙΚΜΝΟΡΤΥΧϜ', 'ABEZHIKMNOPTYXF'],
  // Armenian
  ['օսհոցզ', 'ouhngq'],
  // Cherokee capitals
  ['ᎪᏴᏟᎬᎻᏆᎫᏦᏞᎷᏀᏢᏚᎢᏙᏔᏃ', 'ABCEHIJKLMGPSTVWZ'],
  // Lisu (an alphabet made of Latin capitals' shapes)
  ['ꓮꓐꓚꓓꓰꓝꓖꓧꓲꓙꓗꓡꓟꓠꓳꓑꓣꓢꓔꓴꓦꓪꓫꓬꓜ', 'ABCDEFGHIJKLMNOPRSTUVWXYZ'],
  // Greek lunate sigma and yot, Coptic look-alikes
  ['ϲϳϹⲟⲞ', 'cjCoO'],
  // Latin extensions and IPA letters that look like plain ones
  ['ıɑɡɩʟɪɴʀꜱᴀᴄᴅᴇᴊᴋᴍᴏᴘᴛᴜᴠᴡᴢƅɓƖǀ', 'iagiLINRSACDEJKMOPTUVWZbbIl'],
];

const MAP: ReadonlyMap<string, string> = (() => {
  const m = new Map<string, string>();
  for (const [from, to] of PAIRS) {
    const f = [...from];
    const t = [...to];
    f.forEach((ch, i) => { if (t[i] !== undefined) m.set(ch, t[i]!); });
  }
  return m;
})();

/** Scripts whose letters imitate Latin ones: one of their letters inside a Latin word is a disguise, mapped or not. */
const MIMIC_SCRIPTS = /[\p{Script=Cyrillic}\p{Script=Greek}\p{Script=Armenian}\p{Script=Cherokee}\p{Script=Lisu}\p{Script=Coptic}]/u;

/** Any letter the table maps: one test before the character-by-character work. */
const ANY_CONFUSABLE = new RegExp(`[${[...MAP.keys()].join('')}]`, 'u');

/** True when the text has a letter that imitates a Latin one. */
export function hasConfusables(text: string): boolean {
  return ANY_CONFUSABLE.test(text);
}

/** Text as it reads: invisible characters removed, NFKC, and look-alike letters replaced by the Latin ones they imitate. */
export function skeleton(text: string): string {
  const folded = text.replace(INVISIBLE_CHARS, '').normalize('NFKC');
  if (!ANY_CONFUSABLE.test(folded)) return folded;
  let out = '';
  for (const ch of folded) out += MAP.get(ch) ?? ch;
  return out;
}

export interface MixedWord {
  /** The word as written. */
  word: string;
  /** What it reads as. */
  reads: string;
}

/**
 * Words (runs of letters) that imitate Latin words: a word with Latin letters and look-alikes of another
 * script ("rеad", Cyrillic е), or, in text that is otherwise Latin, a word written entirely in look-alikes
 * ("сору", all Cyrillic, among English words). A word wholly in another script, in text in that script, is
 * that language, not an imitation: Russian "сор" in a Russian description is not reported.
 */
export function mixedScriptWords(text: string, max = 10): MixedWord[] {
  const folded = text.replace(INVISIBLE_CHARS, '').normalize('NFKC');
  if (!ANY_CONFUSABLE.test(folded) && !MIMIC_SCRIPTS.test(folded)) return [];
  const words = folded.match(/\p{L}+/gu) ?? [];
  let latin = 0;
  let other = 0;
  for (const w of words) {
    if (/^[A-Za-z]+$/.test(w)) latin++;
    else if (!/[A-Za-z]/.test(w) && ![...w].every((c) => MAP.has(c))) other++;
  }
  const latinText = latin > 0 && latin >= 4 * other;
  const out: MixedWord[] = [];
  for (const w of words) {
    if (out.length >= max) break;
    if (!ANY_CONFUSABLE.test(w) && !MIMIC_SCRIPTS.test(w)) continue;
    const chars = [...w];
    const hasLatin = chars.some((c) => /[A-Za-z]/.test(c));
    const reads = chars.map((c) => MAP.get(c) ?? c).join('');
    // Latin letters beside letters of a script whose letters imitate Latin ones: no language spells a word so.
    if (hasLatin && MIMIC_SCRIPTS.test(w)) {
      out.push({ word: w, reads });
      continue;
    }
    const allLookAlike = chars.every((c) => MAP.has(c) || /[A-Za-z]/.test(c));
    if (!allLookAlike) continue; // letters of another script that imitate nothing: that script's own word
    if (latinText && chars.length >= 2) out.push({ word: w, reads });
  }
  return out;
}
