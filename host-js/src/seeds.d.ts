// The origin designs' own vocabulary (src/seeds.js): seed 004's events and
// prompt, seed 000 §F's text-confirmation loop.

export declare const TOOL_APPROVAL: 'TOOL_APPROVAL';
export declare const USER_INTERACTION_REQUESTED: 'USER_INTERACTION_REQUESTED';
export declare const USER_INTERACTION_RESPONDED: 'USER_INTERACTION_RESPONDED';
export declare const USER_INTERACTION_PROCESSED: 'USER_INTERACTION_PROCESSED';

/** Seed 004 §3.4's prompt: `是否批准调用工具 "name"?` in Chinese (`zh`, `zh-CN`), English otherwise. */
export declare function approvalPrompt(tool: string, language?: string): string;

/** A gate event in seed 004's shape. */
export type SeedInteraction =
  | {
      type: 'USER_INTERACTION_REQUESTED';
      timestamp: number;
      interactionId: string;
      operationType: 'TOOL_APPROVAL';
      prompt: string;
      timeout: number;
      metadata: { toolApproval: { toolName: string; toolDescription: string; toolParameters: unknown; approved: false } };
    }
  | { type: 'USER_INTERACTION_RESPONDED'; interactionId: string; inputData: { approved: boolean } }
  | {
      type: 'USER_INTERACTION_PROCESSED';
      interactionId: string;
      operationType: 'TOOL_APPROVAL';
      results: { approved: boolean; status: string };
    };

/**
 * A gate event (a DOM event the gate dispatched, or the flow's event object)
 * in seed 004's shape; null for events seed 004 has no name for.
 */
export declare function interactionOf(event: object, language?: string): SeedInteraction | null;

/** Seed 000 §F: whether a model's text asks the user to confirm a risky operation. */
export declare function isRiskConfirmationQuestion(content: string): boolean;

/** Whether a user's reply agrees ("确认", "yes", …). */
export declare function isAffirmative(reply: string): boolean;

/** Seed 000 §F's loop: the model asks in text, the user answers, the model calls (through the gate). */
export declare class TextConfirmation {
  onModel(content: string, hasToolCalls?: boolean): string | null;
  onUser(reply: string): { kind: 'confirmed' | 'declined'; question: string } | { kind: 'not-asked' };
  readonly open: string | null;
}
