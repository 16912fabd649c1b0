// The memo a run is started with (instruction and workspace, read by `list` and the workspace
// check). Temporal warns above 2,048 bytes for a start's memo (the SDK's TMPRL1103, the server's
// limit.memoSize.warn) and an instruction of 2,000 characters alone passed it (more so in Japanese,
// 3 bytes a character). Pure: clipped by the UTF-8 bytes of the JSON the payload carries.
import { utf8Bytes } from './run/checklist';

/** JSON bytes of both values together: the memo's encoding adds ≈ 40 bytes per field and the keys. */
export const START_MEMO_MAX_BYTES = 1900;
/** A workspace path longer than this is clipped too (then only the workspace lock finds its run). */
export const START_MEMO_WORKSPACE_MAX_BYTES = 1024;

const jsonBytes = (v: string) => utf8Bytes(JSON.stringify(v));

export function startMemo(instruction: string, workspace: string): { instruction: string; workspace: string } {
  const ws = jsonBytes(workspace) > START_MEMO_WORKSPACE_MAX_BYTES ? clipJson(workspace, START_MEMO_WORKSPACE_MAX_BYTES) : workspace;
  return { instruction: clipJson(instruction.slice(0, 2000), START_MEMO_MAX_BYTES - jsonBytes(ws)), workspace: ws };
}

/** `text` clipped so that its JSON is at most `maxBytes` (escapes counted), with "…" when cut. */
function clipJson(text: string, maxBytes: number): string {
  if (jsonBytes(text) <= maxBytes) return text;
  // The quotes and the ellipsis (3 bytes), then each character as JSON writes it.
  let n = 2 + 3;
  let out = '';
  for (const ch of text) {
    const b = jsonBytes(ch) - 2;
    if (n + b > maxBytes) break;
    out += ch;
    n += b;
  }
  return `${out}…`;
}
