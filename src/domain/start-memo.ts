// The memo a run is started with (instruction and workspace, read by `list` and the workspace
// check). Temporal warns above 2,048 bytes for a start's memo (the SDK's TMPRL1103, the server's
// limit.memoSize.warn) and an instruction of 2,000 characters alone passed it (more so in Japanese,
// 3 bytes a character). Pure: clipped by the UTF-8 bytes of the JSON the payload carries.
import { clipJsonUtf8, jsonBytes } from './text';

/** JSON bytes of both values together: the memo's encoding adds ≈ 40 bytes per field and the keys. */
export const START_MEMO_MAX_BYTES = 1900;
/** A workspace path longer than this is clipped too (then only the workspace lock finds its run). */
export const START_MEMO_WORKSPACE_MAX_BYTES = 1024;

export function startMemo(instruction: string, workspace: string): { instruction: string; workspace: string } {
  const ws = jsonBytes(workspace) > START_MEMO_WORKSPACE_MAX_BYTES ? clipJsonUtf8(workspace, START_MEMO_WORKSPACE_MAX_BYTES) : workspace;
  return { instruction: clipJsonUtf8(instruction.slice(0, 2000), START_MEMO_MAX_BYTES - jsonBytes(ws)), workspace: ws };
}
