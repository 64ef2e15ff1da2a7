// A Sequence's lines as the block holds them: each line's instruction, or why it does not parse
// (sequence-syntax.ts), and the text stored for it: an instruction in its normal form, a line
// that does not parse as written, so the user can fix it. A rename rewrites the lines that name
// the block (sequence-lines.ts renameInLine).
import { renameInLine } from './sequence-lines.js';
import { formatInstruction, parseInstruction, type Instruction } from './sequence-syntax.js';

export interface ParsedLine {
  instruction: Instruction | null;
  error: { message: string; pos: number } | null;
}

export function parseLines(instructions: string[]): ParsedLine[] {
  return instructions.map((text) => {
    const r = parseInstruction(text);
    return 'instruction' in r ? { instruction: r.instruction, error: null } : { instruction: null, error: r.error };
  });
}

/** The text stored for each line: its instruction in normal form, or (it does not parse) as written, trimmed. */
export function storedLines(instructions: string[], lines: ParsedLine[]): string[] {
  return instructions.map((text, i) =>
    lines[i]!.instruction ? formatInstruction(lines[i]!.instruction!) : text.trim(),
  );
}

/**
 * The lines with block `from` named `to`, or null when none names it. By the names of the text,
 * as a delete lists them: a line that does not parse (a setting mistyped) is rewritten too, the
 * rest of it as written, so that once fixed it names the block under its new name. The lines that
 * do not name it stay as they are.
 */
export function renameInLines(
  instructions: string[],
  lines: ParsedLine[],
  from: string,
  to: string,
): { instructions: string[]; lines: ParsedLine[] } | null {
  const texts = instructions.map((text) => renameInLine(text, from, to));
  if (texts.every((text) => text === null)) return null;
  const parsed = [...lines];
  const renamed = instructions.map((text, i) => {
    const again = texts[i];
    if (again === null || again === undefined) return text;
    parsed[i] = parseLines([again])[0]!;
    return parsed[i]!.instruction ? formatInstruction(parsed[i]!.instruction!) : again;
  });
  return { instructions: renamed, lines: parsed };
}
