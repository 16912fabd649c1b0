// Test-only: jest's globals. For rendered text (checklists, notifications) checked piece by piece.

/** Each of `parts` stands in `text`: one assertion a part, so a failure names the part missing. */
export function expectToContainAll(text: string, parts: string[]): void {
  for (const part of parts) expect(text).toContain(part);
}
