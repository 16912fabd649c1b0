// A payload nobody can decode changes nothing (S2). Temporal decodes a signal's or update's input
// before any handler sees it; with the SDK's own converter a payload that is not JSON (a person
// typing `JSON please` into the Web UI's "Send a Signal", or `temporal workflow signal --input`)
// throws there, and the workflow task fails again and again: the run is stuck. This converter hands
// such a payload on as a short text naming the problem instead, which every handler's schema then
// refuses (logged, ignored) like any other bad payload. Valid payloads decode exactly as before.
// Loaded by the worker and bundled into the workflow code (src/worker.ts).
import { BinaryPayloadConverter, CompositePayloadConverter, JsonPayloadConverter, UndefinedPayloadConverter, type Payload } from '@temporalio/common';
import { decode } from '@temporalio/common/lib/encoding';

/** At most this much of an unreadable payload's text is kept (it is logged by whoever refuses it). */
const MAX_SHOWN_CHARS = 200;

class TolerantPayloadConverter extends CompositePayloadConverter {
  constructor() {
    super(new UndefinedPayloadConverter(), new BinaryPayloadConverter(), new JsonPayloadConverter());
  }

  override fromPayload<T>(payload: Payload): T {
    try {
      return super.fromPayload<T>(payload);
    } catch (err) {
      const shown = payload.data ? decode(payload.data.subarray(0, MAX_SHOWN_CHARS)) : '';
      return `unreadable payload (${err instanceof Error ? err.message : String(err)}): ${shown}` as T;
    }
  }
}

export const payloadConverter = new TolerantPayloadConverter();
