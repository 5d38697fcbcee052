/**
 * Text from the log made safe for a terminal. Record bodies, names and labels are written by
 * anyone who can append: an escape sequence in them could clear the screen, retitle the window
 * or write the clipboard, a line break could forge a line of output (a fake record, a fake
 * warning), and a bidirectional override could reorder what is shown. Each such character is
 * shown as an escape instead; `--json` output is already escaped by JSON itself.
 */

// C0 controls, DEL, C1 controls, and the bidirectional embeddings, overrides and isolates.
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** `text` with every control character shown as `\n`, `\r`, `\t`, `\xNN` or `\u{NNNN}`. */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (char) => {
    const named = NAMED[char];
    if (named !== undefined) return named;
    const code = char.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
  });
}
