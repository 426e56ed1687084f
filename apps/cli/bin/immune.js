#!/usr/bin/env node
// The published bin runs the TypeScript sources through tsx's loader, so `npx immune` works
// right after `npm ci` with no build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
