// Type-checked by `npm run typecheck` after `npm run build` (never run): the
// enums scripts/gen-types.js writes from the WIT (src/shapes.d.ts) are the ones
// jco's bindings generate from it, so the two readings of the WIT cannot part.
import type * as wit from '../gen/interfaces/toolgate-policy-types.js';
import type * as records from '../gen/interfaces/toolgate-policy-records.js';
import type { Action, CallFormat, Risk, Source, Policy } from '../src/index.js';

type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

export const agree: [
  Same<Risk, wit.Risk>,
  Same<Action, wit.Action>,
  Same<Source, wit.Source>,
  Same<CallFormat, wit.CallFormat>,
  Same<ReturnType<Policy['recheck']>, records.RecheckVerdict>,
] = [true, true, true, true, true];

// The check can fail: a union one case short is not the same.
// @ts-expect-error
export const differs: Same<Exclude<CallFormat, 'ai-sdk'>, wit.CallFormat> = true;
