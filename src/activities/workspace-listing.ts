// The workspace's top level as the planner sees it (goal understanding, replan decisions).
import * as fs from 'node:fs/promises';

export async function workspaceListing(workspace: string): Promise<string> {
  try {
    const entries = await fs.readdir(workspace, { withFileTypes: true });
    return entries
      .filter((e) => e.name !== '.replanner' && e.name !== '.git' && e.name !== 'node_modules')
      .slice(0, 100)
      .map((e) => (e.isDirectory() ? `${e.name}/` : e.name))
      .join('\n');
  } catch {
    return '(workspace not readable)';
  }
}
