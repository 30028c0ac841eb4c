// A block of text asimov owns inside a person's instruction file (GROK.md, AGENTS.md…): between two marker
// lines, so that installing again replaces exactly the block and uninstalling removes exactly it (and the
// blank line it added), leaving every other byte of the file as it was. Pure: text in, text out.

export const BLOCK_BEGIN = '<!-- asimov:begin (written by `asimov wire`; `asimov wire --uninstall` removes it) -->';
export const BLOCK_END = '<!-- asimov:end -->';

/** The block's bounds in a text: from the begin marker to the end of the end marker's line. */
function findBlock(text: string): { from: number; to: number } | null {
  const from = text.indexOf(BLOCK_BEGIN);
  if (from === -1) return null;
  const endAt = text.indexOf(BLOCK_END, from);
  if (endAt === -1) return null;
  let to = endAt + BLOCK_END.length;
  if (text[to] === '\n') to++;
  return { from, to };
}

export function hasInstructionBlock(text: string | null): boolean {
  return text !== null && findBlock(text) !== null;
}

/**
 * Puts `body` in asimov's block (appended after a blank line when the file has none yet), or removes the
 * block with `uninstall`. A file that held nothing but the block becomes null (delete it).
 */
export function planInstructionBlock(text: string | null, body: string, uninstall: boolean): { text: string | null; changes: string[] } {
  const block = `${BLOCK_BEGIN}\n${body.replace(/\n*$/, '\n')}${BLOCK_END}\n`;
  const at = text === null ? null : findBlock(text);
  if (uninstall) {
    if (text === null || at === null) return { text, changes: [] };
    // Also the blank line the install put before the block.
    const from = at.from >= 1 && text.slice(0, at.from).endsWith('\n\n') ? at.from - 1 : at.from;
    const rest = text.slice(0, from) + text.slice(at.to);
    return { text: rest.trim() === '' ? null : rest, changes: ['removed asimov\'s instructions'] };
  }
  if (text === null || text.trim() === '') return { text: block, changes: ['added asimov\'s instructions'] };
  if (at !== null) {
    if (text.slice(at.from, at.to) === block) return { text, changes: [] };
    return { text: text.slice(0, at.from) + block + text.slice(at.to), changes: ['updated asimov\'s instructions'] };
  }
  // One blank line before the block, which uninstall takes away again (a file that did not end in a line
  // break gets one back: the only byte an install and uninstall change).
  const sep = text.endsWith('\n') ? '\n' : '\n\n';
  return { text: `${text}${sep}${block}`, changes: ['added asimov\'s instructions'] };
}
