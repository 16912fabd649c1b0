// Turning Node fs errors into messages the model can act on.
import { ToolError } from './types';

export function fsError(err: unknown, rel: string): ToolError {
  if (err instanceof ToolError) return err;
  const e = err as NodeJS.ErrnoException;
  switch (e?.code) {
    case 'ENOENT':
      return new ToolError(`not found: ${rel}`);
    case 'EISDIR':
      return new ToolError(`is a directory, not a file: ${rel}`);
    case 'ENOTDIR':
      return new ToolError(`not a directory (a parent of the path is a file): ${rel}`);
    case 'EACCES':
    case 'EPERM':
      return new ToolError(`permission denied: ${rel}`);
    case 'EEXIST':
      return new ToolError(`already exists and is not a directory: ${rel}`);
    default:
      return new ToolError(`${rel}: ${e?.message ?? String(err)}`);
  }
}
