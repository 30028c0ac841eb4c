// The bench measures what ships: the bundled library in dist/ (built by `npm run bench` first), not the
// TypeScript sources as tsx runs them, which carry per-function wrappers of their own.

import type * as Source from '../src/index.ts';
// @ts-ignore: dist/ is generated; its declarations live in dist/types and mirror src/index.ts.
import * as built from '../dist/index.js';

const lib = built as unknown as typeof Source;

export const { createGate, loadPolicy, createRuleContext, normalizeTool, classifyShell, analyzeShell, TIER_ORDER } = lib;
