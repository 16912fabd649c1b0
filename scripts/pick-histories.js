#!/usr/bin/env node
// Picks replay fixtures: one history per distinct shape out of a directory of recorded histories
// (RECORD_ALL_HISTORIES=DIR npx jest … saves every closed workflow of a jest run there).
// A shape is the workflow type, how it closed, and the set of kinds of event it holds, each with
// the activity, child workflow, signal, update or patch it names; of each shape the smallest history
// is kept. The bench's floor workflows are left out: they are not the product's.
//   node scripts/pick-histories.js FROM_DIR TO_DIR
const fs = require('node:fs');
const path = require('node:path');

const [from, to] = process.argv.slice(2);
if (!from || !to) {
  console.error('usage: node scripts/pick-histories.js FROM_DIR TO_DIR');
  process.exit(2);
}

function nameIn(e) {
  const marker = e.markerRecordedEventAttributes;
  if (marker) {
    const data = marker.details?.patch_data?.payloads?.[0]?.data;
    return `${marker.markerName}${data ? `:${Buffer.from(data, 'base64').toString()}` : ''}`;
  }
  return (
    e.activityTaskScheduledEventAttributes?.activityType?.name ??
    e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowType?.name ??
    e.workflowExecutionSignaledEventAttributes?.signalName ??
    e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name ??
    e.signalExternalWorkflowExecutionInitiatedEventAttributes?.signalName ??
    ''
  );
}

const picked = new Map();
for (const file of fs.readdirSync(from).filter((f) => f.endsWith('.json'))) {
  const text = fs.readFileSync(path.join(from, file), 'utf8');
  const events = JSON.parse(text).events ?? [];
  const type = events[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name;
  if (!type || type.startsWith('Floor')) continue;
  const kinds = [...new Set(events.map((e) => `${e.eventType}:${nameIn(e)}`))].sort();
  const shape = `${type}|${events.at(-1)?.eventType}|${kinds.join(';')}`;
  const before = picked.get(shape);
  if (!before || text.length < before.size) picked.set(shape, { file, size: text.length });
}
fs.mkdirSync(to, { recursive: true });
for (const { file } of picked.values()) fs.copyFileSync(path.join(from, file), path.join(to, file));
console.log(`${picked.size} shapes picked into ${to}`);
