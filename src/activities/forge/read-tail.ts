// G4: the end of a response body, read as it streams with no more than `maxBytes` held at once:
// a CI log can be many megabytes and only its end is wanted (where a failure's reason usually is).

/** The last `maxBytes` bytes of the body as text (a character cut at the start is dropped), and whether anything was dropped. */
export async function readTail(body: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<{ text: string; cut: boolean }> {
  if (!body) return { text: '', cut: false };
  const chunks: Uint8Array[] = [];
  let held = 0;
  let cut = false;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    held += value.byteLength;
    while (held - chunks[0]!.byteLength >= maxBytes) {
      held -= chunks.shift()!.byteLength;
      cut = true;
    }
  }
  let bytes = Buffer.concat(chunks);
  if (bytes.byteLength > maxBytes) {
    bytes = bytes.subarray(bytes.byteLength - maxBytes);
    cut = true;
    // Skip UTF-8 continuation bytes: the text starts on a whole character.
    let i = 0;
    while (i < bytes.byteLength && i < 4 && (bytes[i]! & 0xc0) === 0x80) i++;
    bytes = bytes.subarray(i);
  }
  return { text: bytes.toString('utf8'), cut };
}

/** A Response carrying only the end of `response`'s body (for a client that reads the whole body). */
export async function tailResponse(response: Response, maxBytes: number): Promise<Response> {
  if (!response.ok) return response;
  const { text } = await readTail(response.body, maxBytes);
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  headers.delete('content-encoding');
  if (!headers.get('content-type')) headers.set('content-type', 'text/plain; charset=utf-8');
  return new Response(text, { status: response.status, statusText: response.statusText, headers });
}
